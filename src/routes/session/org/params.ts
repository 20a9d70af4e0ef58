export const ORG_TAGS = ["Organization"];
