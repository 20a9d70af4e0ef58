export * from "./organizations";
export * from "./api-keys";
export * from "./customers";
export * from "./envelopes";
export * from "./events";
export * from "./documents";
export * from "./webhooks";
export * from "./vault";
