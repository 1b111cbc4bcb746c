/**
 * Just enough protobuf to write an ONNX `ModelProto` (varints, length-delimited fields,
 * fixed32), plus a small graph builder. The model is small, so no converter is needed.
 */

/** ONNX `TensorProto.DataType` values the port uses. */
export const DT = Object.freeze({ FLOAT: 1, INT8: 3, INT32: 6, INT64: 7 });

/** A typed array whose bytes are a tensor's raw data (little-endian). */
export type TensorData = Float32Array | Int8Array | Int32Array | BigInt64Array;

/** A constant tensor of the graph (an initializer). */
export interface OnnxTensor {
  readonly name: string;
  readonly type: number;
  readonly dims: readonly number[];
  readonly data: TensorData;
}

/** A float attribute that must stay a float even when integral (e.g. epsilon 1). */
export interface FloatAttribute {
  readonly float: number;
}

export type AttributeValue = number | bigint | string | readonly number[] | FloatAttribute;

export interface OnnxNode {
  readonly name: string;
  readonly op: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly attrs?: Readonly<Record<string, AttributeValue>>;
}

/** A graph input or output: element type and shape (named dims are symbolic). */
export interface OnnxValueInfo {
  readonly name: string;
  readonly type: number;
  readonly shape: readonly (number | string)[];
}

/** Everything {@link encodeModel} writes. */
export interface OnnxGraph {
  readonly name: string;
  readonly opset: number;
  readonly nodes: readonly OnnxNode[];
  readonly initializers: readonly OnnxTensor[];
  readonly inputs: readonly OnnxValueInfo[];
  readonly outputs: readonly OnnxValueInfo[];
  readonly docString?: string;
  readonly metadata?: Readonly<Record<string, string>>;
}

const WIRE_VARINT = 0;
const WIRE_LENGTH = 2;
const WIRE_FIXED32 = 5;

/** Growable byte sink that concatenates its chunks once, at the end. */
class ProtoWriter {
  readonly chunks: Uint8Array[] = [];
  length = 0;

  push(bytes: Uint8Array): void {
    this.chunks.push(bytes);
    this.length += bytes.length;
  }

  varint(value: number | bigint): void {
    // BigInt so negative int64 values encode as 10-byte two's complement, as protobuf requires.
    let v = BigInt.asUintN(64, BigInt(value));
    const out: number[] = [];
    while (v >= 0x80n) {
      out.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    out.push(Number(v));
    this.push(Uint8Array.from(out));
  }

  tag(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }

  int(field: number, value: number | bigint): void {
    this.tag(field, WIRE_VARINT);
    this.varint(value);
  }

  bytes(field: number, bytes: Uint8Array): void {
    this.tag(field, WIRE_LENGTH);
    this.varint(bytes.length);
    this.push(bytes);
  }

  string(field: number, text: string): void {
    this.bytes(field, new TextEncoder().encode(text));
  }

  message(field: number, build: (inner: ProtoWriter) => void): void {
    const inner = new ProtoWriter();
    build(inner);
    this.tag(field, WIRE_LENGTH);
    this.varint(inner.length);
    for (const chunk of inner.chunks) this.push(chunk);
  }

  float(field: number, value: number): void {
    this.tag(field, WIRE_FIXED32);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.push(b);
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.length);
    let offset = 0;
    for (const chunk of this.chunks) {
      out.set(chunk, offset);
      offset += chunk.length;
    }
    return out;
  }
}

function writeTensor(w: ProtoWriter, t: OnnxTensor): void {
  for (const d of t.dims) w.int(1, d);
  w.int(2, t.type);
  w.string(8, t.name);
  w.bytes(9, new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
}

const ATTR_FLOAT = 1;
const ATTR_INT = 2;
const ATTR_STRING = 3;
const ATTR_INTS = 7;

function writeAttribute(w: ProtoWriter, name: string, value: AttributeValue): void {
  w.string(1, name);
  if (typeof value === 'number' && !Number.isInteger(value)) {
    w.float(2, value);
    w.int(20, ATTR_FLOAT);
  } else if (typeof value === 'number' || typeof value === 'bigint') {
    w.int(3, value);
    w.int(20, ATTR_INT);
  } else if (typeof value === 'string') {
    w.string(4, value);
    w.int(20, ATTR_STRING);
  } else if (Array.isArray(value)) {
    for (const v of value as readonly number[]) w.int(8, v);
    w.int(20, ATTR_INTS);
  } else {
    w.float(2, (value as FloatAttribute).float);
    w.int(20, ATTR_FLOAT);
  }
}

function writeValueInfo(w: ProtoWriter, info: OnnxValueInfo): void {
  w.string(1, info.name);
  w.message(2, (type) =>
    type.message(1, (tensorType) => {
      tensorType.int(1, info.type);
      tensorType.message(2, (shape) => {
        for (const d of info.shape) {
          shape.message(1, (dim) => (typeof d === 'string' ? dim.string(2, d) : dim.int(1, d)));
        }
      });
    }),
  );
}

/**
 * Encodes an ONNX `ModelProto` (IR 8, default domain at `graph.opset`).
 *
 * @example
 * const bytes = encodeModel({ name: 'g', opset: 17, nodes: [], initializers: [], inputs: [], outputs: [] })
 */
export function encodeModel(graph: OnnxGraph): Uint8Array {
  const w = new ProtoWriter();
  w.int(1, 8); // ir_version 8 pairs with opset 17
  // The producer name predates `loopctl model`; kept so the bytes stay the same.
  w.string(2, 'loopctl/build-model');
  w.string(3, '1');
  w.message(7, (g) => {
    for (const n of graph.nodes) {
      g.message(1, (nw) => {
        for (const i of n.inputs) nw.string(1, i);
        for (const o of n.outputs) nw.string(2, o);
        nw.string(3, n.name);
        nw.string(4, n.op);
        for (const [k, v] of Object.entries(n.attrs ?? {})) nw.message(5, (aw) => writeAttribute(aw, k, v));
      });
    }
    g.string(2, graph.name);
    for (const t of graph.initializers) g.message(5, (tw) => writeTensor(tw, t));
    if (graph.docString) g.string(10, graph.docString);
    for (const i of graph.inputs) g.message(11, (vw) => writeValueInfo(vw, i));
    for (const o of graph.outputs) g.message(12, (vw) => writeValueInfo(vw, o));
  });
  w.message(8, (op) => {
    op.string(1, '');
    op.int(2, graph.opset);
  });
  for (const [key, value] of Object.entries(graph.metadata ?? {})) {
    w.message(14, (m) => {
      m.string(1, key);
      m.string(2, value);
    });
  }
  return w.finish();
}

/**
 * Appends nodes and initializers; `op('MatMul', [a, b])` returns the new node's output name.
 *
 * @example
 * const g = new GraphBuilder()
 * const y = g.op('Relu', ['x'])
 */
export class GraphBuilder {
  readonly nodes: OnnxNode[] = [];
  readonly initializers: OnnxTensor[] = [];
  private count = 0;

  /** One output: its name. */
  op(type: string, inputs: readonly string[], attrs?: Record<string, AttributeValue>): string;
  /** Several outputs (a count) or named outputs: their names. */
  op(
    type: string,
    inputs: readonly string[],
    attrs: Record<string, AttributeValue>,
    outputs: number | readonly string[],
  ): string[];
  op(
    type: string,
    inputs: readonly string[],
    attrs: Record<string, AttributeValue> = {},
    outputs: number | readonly string[] = 1,
  ): string | string[] {
    const id = `${type}_${this.count++}`;
    const outs =
      typeof outputs === 'number' ? Array.from({ length: outputs }, (_, i) => `${id}_out${i}`) : [...outputs];
    this.nodes.push({ name: id, op: type, inputs, outputs: outs, attrs });
    return outs.length === 1 && typeof outputs === 'number' ? (outs[0] as string) : outs;
  }

  const(name: string, type: number, dims: readonly number[], data: TensorData): string {
    this.initializers.push({ name, type, dims, data });
    return name;
  }

  i64(name: string, values: readonly number[]): string {
    return this.const(name, DT.INT64, [values.length], BigInt64Array.from(values.map((v) => BigInt(v))));
  }

  f32(name: string, value: number): string {
    return this.const(name, DT.FLOAT, [], Float32Array.of(value));
  }
}
