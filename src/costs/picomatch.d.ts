// picomatch 4 ships no types; this is the one call Spyglass makes (src/costs/tool-rules.ts).
declare module 'picomatch' {
  function picomatch(
    glob: string | string[],
    options?: { nocase?: boolean; dot?: boolean },
  ): (input: string) => boolean;
  export default picomatch;
}
