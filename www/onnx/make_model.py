#!/usr/bin/env python3
"""Writes www/onnx/tiny.onnx, the example's model: y = Relu(x · W + b), with x
of shape [1, 4], W [4, 3] and b [3] stored in the file (float32), ONNX IR 8,
opset 17. The protobuf is written by hand (the standard library only), so the
example needs no `onnx` package; the test (tests/js/onnx.test.mjs) computes the
expected output from the same numbers on its own.

    python3 www/onnx/make_model.py
"""
import struct
from pathlib import Path

W = [[0.5, -1.0, 0.25], [1.0, 0.5, -0.5], [-0.25, 0.75, 1.0], [0.0, -0.5, 0.5]]
B = [0.1, -0.2, 0.3]


from onnx_proto import field


FLOAT = 1  # TensorProto.DataType.FLOAT


def tensor(name, dims, values):
    body = b"".join(field(1, d) for d in dims) + field(2, FLOAT)
    body += field(8, name) + field(9, struct.pack(f"<{len(values)}f", *values))  # raw_data, little-endian
    return body


def value_info(name, dims):
    shape = b"".join(field(1, field(1, d)) for d in dims)  # TensorShapeProto.dim { dim_value }
    tensor_type = field(1, FLOAT) + field(2, shape)  # TypeProto.Tensor { elem_type, shape }
    return field(1, name) + field(2, field(1, tensor_type))  # ValueInfoProto { name, type { tensor_type } }


def node(op, inputs, outputs, name):
    return b"".join(field(1, i) for i in inputs) + b"".join(field(2, o) for o in outputs) + field(3, name) + field(4, op)


graph = b"".join([
    field(1, node("MatMul", ["x", "W"], ["xW"], "matmul")),
    field(1, node("Add", ["xW", "b"], ["xWb"], "add")),
    field(1, node("Relu", ["xWb"], ["y"], "relu")),
    field(2, "tiny"),
    field(5, tensor("W", [4, 3], [v for row in W for v in row])),
    field(5, tensor("b", [3], B)),
    field(11, value_info("x", [1, 4])),
    field(12, value_info("y", [1, 3])),
])
model = field(1, 8) + field(2, "backend-targets make_model.py") + field(7, graph) + field(8, field(1, "") + field(2, 17))
Path(__file__).with_name("tiny.onnx").write_bytes(model)
print(f"tiny.onnx: {len(model)} bytes")
