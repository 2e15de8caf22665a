"""Weight stripping for the ONNX exporters in this folder, as the corpus's
stripped files are made: every float tensor (initializer or a Constant
node's value) over 1024 bytes keeps its name, dims and data_type and loses
its data; integer tensors stay whole; metadata_props gets
weights_stripped=true."""
import onnx
from onnx import TensorProto

FLOAT_TYPES = {TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.DOUBLE, TensorProto.BFLOAT16}


def strip_tensor(t):
    if t.data_type not in FLOAT_TYPES:
        return
    # 16-bit floats are kept one per int32_data element, 2 bytes each.
    size = len(t.raw_data) + 4 * len(t.float_data) + 8 * len(t.double_data) + 2 * len(t.int32_data)
    if size <= 1024:
        return
    t.ClearField("raw_data")
    t.ClearField("float_data")
    t.ClearField("double_data")
    t.ClearField("int32_data")
    t.raw_data = b""


def strip_model(m):
    """Strips ModelProto m in place."""
    for t in m.graph.initializer:
        strip_tensor(t)
    for n in m.graph.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.TENSOR:
                strip_tensor(a.t)
    p = m.metadata_props.add()
    p.key, p.value = "weights_stripped", "true"
