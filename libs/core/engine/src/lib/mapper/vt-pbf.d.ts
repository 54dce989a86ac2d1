declare module 'vt-pbf' {
  interface VtFeature {
    type: 1 | 2 | 3;
    geometry: Array<[number, number]> | Array<Array<[number, number]>>;
    tags: Record<string, unknown>;
    id?: number;
  }
  interface VtTile {
    features: VtFeature[];
  }
  const vtpbf: {
    fromGeojsonVt(layers: Record<string, VtTile>, options?: { version?: number; extent?: number }): Uint8Array;
  };
  export default vtpbf;
}
