/** Text files imported whole (`docs/webhooks.md?raw`): the docs tests compare what a reader is told with the code. */
declare module "*?raw" {
  const text: string;
  export default text;
}
