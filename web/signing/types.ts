export type Area = { page: number; x: number; y: number; w: number; h: number };

export type SignatureValue = { kind: "drawn"; dataUrl: string } | { kind: "typed"; text: string };

export type Field = {
  name: string;
  type: "signature" | "initials" | "text" | "date" | "number" | "checkbox" | "select" | "radio" | string;
  required: boolean;
  readonly: boolean;
  default_value: string | null;
  value: unknown;
  options?: string[] | null;
  areas: Area[];
};

export type SigningState = {
  envelope: { id: string; name: string; status: string; expires_at: string | null };
  signer: { name: string; email: string; role: string; routing_order: number; status: string; viewed_at: string | null; signed_at: string | null };
  is_your_turn: boolean;
  fields: Field[];
  signers: { name: string; role: string; routing_order: number; status: string; is_you: boolean }[];
};

export type SubmittedValue = string | number | boolean | null;
