"""The two pieces of a protobuf writer that the ONNX models here need (stdlib
only): www/onnx/make_model.py and tests/js/fixtures/make_transformers_model.py."""


def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field(number, value):
    """One protobuf field: an int (varint), str/bytes (length-delimited)."""
    if isinstance(value, int):
        return varint(number << 3 | 0) + varint(value)
    if isinstance(value, str):
        value = value.encode()
    return varint(number << 3 | 2) + varint(len(value)) + value
