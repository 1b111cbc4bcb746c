// wrangler (esbuild + its CompiledWasm rule) turns a `.wasm` import into a precompiled module.
declare module '*.wasm' {
  const module: WebAssembly.Module;
  export default module;
}
