#!/usr/bin/python3
"""make_dyn_models.py — writes the dynamic exports tests/cli/test_dyn_bind.sh
binds symbol by symbol, into tests/data/dyn/. Each mimics one family's way
of naming and using its dims:

  mel_shape_peak.onnx  an openWakeWord-like melspectrogram over
                       input[batch_size, samples]: STFT as Conv1d, power,
                       mel MatMul, and the view() at the end built from
                       Shape -> Gather -> Concat, so small int64 tensors of
                       known size stay live beside the formula-sized ones
  ocr_rec_p2o.onnx     a Paddle2ONNX recogniser with p2o.DynamicDimension.N
                       dims (one only declared on the output) and the
                       sequence length floor((W+3)/8)-like from two strides
  ocr_det_fpn.onnx     a PP-OCR det-like FPN: two stride-2 convs, the
                       deeper map upsampled x2 and added to the shallower
                       one at p2o.Add.248 (an odd height cannot run)
  rnn_long_dims.onnx   a decoder whose dims carry exporter names
                       ("Unsqueeze/decoder/rnn/Unsqueeze_output_0_dim_1")
  vad_if_sr.onnx       Silero-VAD-like: If(Equal(sr, 16000)) with the
                       network in each branch, branches of different work
                       and of different output shapes

The expected shapes and peaks are not written here: the test takes them
from onnx.shape_inference at each binding.

Usage: make_dyn_models.py [OUTDIR]   (default tests/data/dyn)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP
from onnx import helper as h
from onnx import numpy_helper as nh

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "data", "dyn")
F32, I64, BOOL = TP.FLOAT, TP.INT64, TP.BOOL


def vi(name, dims, dt=F32):
    return h.make_tensor_value_info(name, dt, dims)


def weight(name, shape, salt):
    n = int(np.prod(shape))
    i = np.arange(n, dtype=np.int64)
    v = 0.1 * (((i * 7919 + salt * 104729 + 12345) % 2003).astype(np.float64) / 1001.0 - 1.0)
    return nh.from_array(v.reshape(shape).astype(np.float32), name)


def const(name, out, arr):
    return h.make_node("Constant", [], [out], name=name, value=nh.from_array(np.asarray(arr), out))


def save(fname, graph, opset):
    m = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)], producer_name="make_dyn_models.py")
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(OUT, fname))


def mel_shape_peak():
    n_fft, hop, bins, mels = 512, 160, 257, 32
    nodes = [
        const("/Constant", "/Constant_output_0", np.array([1], np.int64)),
        h.make_node("Unsqueeze", ["input", "/Constant_output_0"], ["/Unsqueeze_output_0"], name="/Unsqueeze"),
        h.make_node("Shape", ["input"], ["/Shape_output_0"], name="/Shape"),
        const("/Constant_1", "/Constant_1_output_0", np.array(0, np.int64)),
        h.make_node("Gather", ["/Shape_output_0", "/Constant_1_output_0"], ["/Gather_output_0"], name="/Gather",
                    axis=0),
        const("/Constant_2", "/Constant_2_output_0", np.array([0], np.int64)),
        h.make_node("Unsqueeze", ["/Gather_output_0", "/Constant_2_output_0"], ["/Unsqueeze_1_output_0"],
                    name="/Unsqueeze_1"),
        const("/Constant_3", "/Constant_3_output_0", np.array([-1, mels], np.int64)),
        h.make_node("Concat", ["/Unsqueeze_1_output_0", "/Constant_3_output_0"], ["/Concat_output_0"],
                    name="/Concat", axis=0),
        h.make_node("Conv", ["/Unsqueeze_output_0", "stft.real"], ["/stft/Conv_output_0"], name="/stft/Conv",
                    kernel_shape=[n_fft], strides=[hop]),
        h.make_node("Conv", ["/Unsqueeze_output_0", "stft.imag"], ["/stft/Conv_1_output_0"],
                    name="/stft/Conv_1", kernel_shape=[n_fft], strides=[hop]),
        h.make_node("Mul", ["/stft/Conv_output_0", "/stft/Conv_output_0"], ["/Mul_output_0"], name="/Mul"),
        h.make_node("Mul", ["/stft/Conv_1_output_0", "/stft/Conv_1_output_0"], ["/Mul_1_output_0"],
                    name="/Mul_1"),
        h.make_node("Add", ["/Mul_output_0", "/Mul_1_output_0"], ["/Add_output_0"], name="/Add"),
        h.make_node("Transpose", ["/Add_output_0"], ["/Transpose_output_0"], name="/Transpose", perm=[0, 2, 1]),
        h.make_node("MatMul", ["/Transpose_output_0", "melW"], ["/MatMul_output_0"], name="/MatMul"),
        h.make_node("Reshape", ["/MatMul_output_0", "/Concat_output_0"], ["output"], name="/Reshape"),
    ]
    g = h.make_graph(nodes, "torch_jit", [vi("input", ["batch_size", "samples"])],
                     [vi("output", ["batch_size", "time", mels])],
                     initializer=[weight("stft.real", [bins, 1, n_fft], 1), weight("stft.imag", [bins, 1, n_fft], 2),
                                  weight("melW", [bins, mels], 3)])
    save("mel_shape_peak.onnx", g, 13)


def conv_bn_relu(x, i, cin, cout, stride, inits):
    inits += [weight(f"conv2d_{i}.w_0", [cout, cin, 3, 3], 10 + i)]
    return [h.make_node("Conv", [x, f"conv2d_{i}.w_0"], [f"conv2d_{i}.tmp_0"], name=f"p2o.Conv.{i}",
                        kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=stride),
            h.make_node("Relu", [f"conv2d_{i}.tmp_0"], [f"relu_{i}.tmp_0"], name=f"p2o.Relu.{i}")], f"relu_{i}.tmp_0"


def ocr_rec_p2o():
    inits, nodes = [], []
    x = "x"
    for i, (cin, cout, st) in enumerate([(3, 8, [2, 2]), (8, 16, [2, 1]), (16, 16, [2, 2])]):
        n, x = conv_bn_relu(x, i, cin, cout, st, inits)
        nodes += n
    nodes += [
        h.make_node("MaxPool", [x], ["pool2d_0.tmp_0"], name="p2o.MaxPool.0", kernel_shape=[2, 2],
                    strides=[2, 2]),
        const("p2o.Constant.0", "p2o.Constant.0.out", np.array([0, 16, -1], np.int64)),
        h.make_node("Reshape", ["pool2d_0.tmp_0", "p2o.Constant.0.out"], ["reshape2_0.tmp_0"],
                    name="p2o.Reshape.0"),
        h.make_node("Transpose", ["reshape2_0.tmp_0"], ["transpose_0.tmp_0"], name="p2o.Transpose.0",
                    perm=[0, 2, 1]),
        h.make_node("MatMul", ["transpose_0.tmp_0", "linear_0.w_0"], ["linear_0.tmp_0"], name="p2o.MatMul.0"),
        h.make_node("Softmax", ["linear_0.tmp_0"], ["softmax_0.tmp_0"], name="p2o.Softmax.0", axis=2),
    ]
    inits.append(weight("linear_0.w_0", [16, 37], 20))
    dyn = ["p2o.DynamicDimension.0", 3, "p2o.DynamicDimension.1", "p2o.DynamicDimension.2"]
    g = h.make_graph(nodes, "paddle-onnx", [vi("x", dyn)],
                     [vi("softmax_0.tmp_0", ["p2o.DynamicDimension.0", "p2o.DynamicDimension.3", 37])],
                     initializer=inits)
    save("ocr_rec_p2o.onnx", g, 11)


def ocr_det_fpn():
    inits, nodes = [], []
    n, c1 = conv_bn_relu("x", 0, 3, 8, [2, 2], inits)
    nodes += n
    n, c2 = conv_bn_relu(c1, 1, 8, 8, [2, 2], inits)
    nodes += n
    inits.append(nh.from_array(np.array([1, 1, 2, 2], np.float32), "p2o.scales"))
    inits.append(nh.from_array(np.zeros([0], np.float32), "p2o.roi"))
    nodes += [
        h.make_node("Resize", [c2, "p2o.roi", "p2o.scales"], ["up.tmp_0"], name="p2o.Resize.0", mode="nearest"),
        h.make_node("Add", [c1, "up.tmp_0"], ["tmp_248"], name="p2o.Add.248"),
        h.make_node("Sigmoid", ["tmp_248"], ["sigmoid_0.tmp_0"], name="p2o.Sigmoid.0"),
    ]
    dyn = ["p2o.DynamicDimension.0", 3, "p2o.DynamicDimension.1", "p2o.DynamicDimension.2"]
    g = h.make_graph(nodes, "paddle-onnx", [vi("x", dyn)], [vi("sigmoid_0.tmp_0", ["p2o.DynamicDimension.0", 8, "p2o.DynamicDimension.3", "p2o.DynamicDimension.4"])], initializer=inits)
    save("ocr_det_fpn.onnx", g, 11)


def rnn_long_dims():
    b, t = "Unsqueeze/decoder/rnn/Unsqueeze_output_0_dim_0", "Unsqueeze/decoder/rnn/Unsqueeze_output_0_dim_1"
    nodes = [
        h.make_node("MatMul", ["tokens", "emb"], ["/decoder/emb/MatMul_output_0"], name="/decoder/emb/MatMul"),
        h.make_node("Tanh", ["/decoder/emb/MatMul_output_0"], ["/decoder/Tanh_output_0"], name="/decoder/Tanh"),
        h.make_node("MatMul", ["/decoder/Tanh_output_0", "proj"], ["logits"], name="/decoder/proj/MatMul"),
    ]
    g = h.make_graph(nodes, "main_graph", [vi("tokens", [b, t, 64])], [vi("logits", [b, t, 100])],
                     initializer=[weight("emb", [64, 128], 30), weight("proj", [128, 100], 31)])
    save("rnn_long_dims.onnx", g, 13)


def vad_branch(tag, kernel, stride, ch, out_ch):
    inits = [weight(f"w1_{tag}", [ch, 1, kernel], 40 + kernel), weight(f"w2_{tag}", [out_ch, ch, 3], 41 + kernel)]
    nodes = [
        const(f"Constant_{tag}", f"ax_{tag}", np.array([1], np.int64)),
        h.make_node("Unsqueeze", ["input", f"ax_{tag}"], [f"x_{tag}"], name=f"Unsqueeze_{tag}"),
        h.make_node("Conv", [f"x_{tag}", f"w1_{tag}"], [f"c1_{tag}"], name=f"Conv_{tag}_1",
                    kernel_shape=[kernel], strides=[stride]),
        h.make_node("Relu", [f"c1_{tag}"], [f"r1_{tag}"], name=f"Relu_{tag}"),
        h.make_node("Conv", [f"r1_{tag}", f"w2_{tag}"], [f"c2_{tag}"], name=f"Conv_{tag}_2", kernel_shape=[3],
                    pads=[1, 1]),
        h.make_node("Sigmoid", [f"c2_{tag}"], [f"out_{tag}"], name=f"Sigmoid_{tag}"),
    ]
    return h.make_graph(nodes, f"branch_{tag}", [], [vi(f"out_{tag}", [None, None, None])], initializer=inits)


def vad_if_sr():
    nodes = [
        const("Constant_0", "k16000", np.array(16000, np.int64)),
        h.make_node("Equal", ["sr", "k16000"], ["is16k"], name="Equal_1"),
        h.make_node("If", ["is16k"], ["output"], name="If_2",
                    then_branch=vad_branch("then", 64, 32, 16, 2), else_branch=vad_branch("else", 32, 16, 64, 1)),
    ]
    g = h.make_graph(nodes, "vad", [vi("input", ["batch", "samples"]), vi("sr", [], I64)],
                     [vi("output", [None, None, None])])
    save("vad_if_sr.onnx", g, 13)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    mel_shape_peak()
    ocr_rec_p2o()
    ocr_det_fpn()
    rnn_long_dims()
    vad_if_sr()
