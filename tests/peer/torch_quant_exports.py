#!/usr/bin/python3
"""torch_quant_exports.py — small models quantized by torch's own flows and
written by torch.onnx.export, for tests/peer: the committed files under
tests/data/torchq/ let peer.py compare rules/onnxruntime with onnxruntime
on the QDQ graphs other quantizers write, beside tests/peer/qdq_models.py's
own QDQ writer, without torch installed where the tests run.

The flows (torch.ao.quantization, qnnpack qconfigs):
  eager    post-training static quantization in eager mode (QuantStub,
           fuse_modules, prepare, calibrate, convert), exported as the
           quantized modules' QDQ form
  fx       the same by FX graph mode (prepare_fx / convert_fx)
  qat      quantization-aware training left in its fake-quant form: every
           weight a QuantizeLinear -> DequantizeLinear of the float weight
           (the form TensorRT reads), scale and zero point of shape [1]
  partial  fake quant on Conv, Linear and MatMul inputs only (the other
           activations stay float): SiLU, decomposed LayerNorm and GELU
           read the DequantizeLinear of a quantized output directly
  trt      the TensorRT form (pytorch-quantization): fake quant on the
           inputs and weights of Conv and Linear only, BatchNorm unfused

Networks are small (a few KB of weights), random with fixed seeds, and
calibrated on fixed random inputs: a CNN with BatchNorm, ReLU, SiLU,
MaxPool and residual Adds, and a transformer block on a 3-D input.

usage: torch_quant_exports.py [OUTDIR]   default tests/data/torchq; writes
       OUTDIR/torchq_FLOW_NET.onnx
"""
import io
import os
import sys

import onnx
import torch
import torch.ao.quantization as tq
import torch.ao.quantization.quantize_fx as qfx
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "data", "torchq")
OPSET = 13
ENGINE = "qnnpack"  # the engine the Debian build of torch has


class TinyCNN(nn.Module):
    """Conv-BN-ReLU stem, MaxPool, a residual block whose Add reads the
    MaxPool, a Conv-BN-SiLU, global pool and a Linear."""

    def __init__(self, c=8, silu=True):
        super().__init__()
        self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
        self.conv1, self.bn1, self.relu1 = nn.Conv2d(3, c, 3, 1, 1), nn.BatchNorm2d(c), nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.conv2, self.bn2, self.relu2 = nn.Conv2d(c, c, 3, 1, 1), nn.BatchNorm2d(c), nn.ReLU()
        self.add = nn.quantized.FloatFunctional()
        self.conv3, self.bn3 = nn.Conv2d(c, 2 * c, 3, 2, 1), nn.BatchNorm2d(2 * c)
        self.act3 = nn.SiLU() if silu else nn.ReLU()
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(2 * c, 10)

    def forward(self, x):
        x = self.quant(x)
        x = self.pool(self.relu1(self.bn1(self.conv1(x))))
        x = self.add.add(self.relu2(self.bn2(self.conv2(x))), x)
        x = self.act3(self.bn3(self.conv3(x)))
        x = self.fc(torch.flatten(self.gap(x), 1))
        return self.dequant(x)

    def fuse(self):
        names = [["conv1", "bn1", "relu1"], ["conv2", "bn2", "relu2"], ["conv3", "bn3"]]
        if isinstance(self.act3, nn.ReLU):
            names[2].append("act3")
        return tq.fuse_modules(self, names)


class TinyBlock(nn.Module):
    """A pre-LN transformer block on [batch, seq, dim]: Linear layers on a 3-D
    input (MatMul + Add at export), decomposed-free LayerNorm, GELU MLP."""

    def __init__(self, d=16, heads=2):
        super().__init__()
        self.d, self.h = d, heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.act = nn.GELU()

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).reshape(b, s, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
        a = torch.softmax(q @ k.transpose(-2, -1) * (d // self.h) ** -0.5, dim=-1) @ v
        x = x + self.proj(a.transpose(1, 2).reshape(b, s, d))
        return x + self.fc2(self.act(self.fc1(self.ln2(x))))


def image():
    return torch.randn(1, 3, 16, 16)


def tokens():
    return torch.randn(1, 6, 16)


def calibrate(model, sample, n=8):
    with torch.no_grad():
        for _ in range(n):
            model(sample())


def export(model, sample, name):
    buf = io.BytesIO()
    torch.onnx.export(model, (sample(),), buf, opset_version=OPSET, input_names=["input"],
                      output_names=["output"], do_constant_folding=True)
    m = onnx.load_from_string(buf.getvalue())
    m.producer_version = ""  # one torch build's version string: keep the bytes stable
    path = os.path.join(OUT, "torchq_%s.onnx" % name)
    onnx.save(m, path)
    print(path, os.path.getsize(path))


def eager_cnn():
    m = TinyCNN(silu=False).eval()
    m = m.fuse()
    m.qconfig = tq.get_default_qconfig(ENGINE)
    tq.prepare(m, inplace=True)
    calibrate(m, image)
    tq.convert(m, inplace=True)
    export(m, image, "eager_cnn")


def fx_cnn():
    m = TinyCNN(silu=False).eval()
    qm = qfx.prepare_fx(m, tq.get_default_qconfig_mapping(ENGINE), (image(),))
    calibrate(qm, image)
    export(qfx.convert_fx(qm), image, "fx_cnn")


def qat(model, sample, fuse):
    model = model.train()
    if fuse:
        model = tq.fuse_modules_qat(model, fuse)
    model.qconfig = tq.get_default_qat_qconfig(ENGINE, version=0)  # FakeQuantize: exportable
    tq.prepare_qat(model, inplace=True)
    calibrate(model, sample)
    model.apply(torch.ao.quantization.disable_observer)
    return model.eval()


def qat_cnn():
    m = qat(TinyCNN(), image, [["conv1", "bn1", "relu1"], ["conv2", "bn2", "relu2"], ["conv3", "bn3"]])
    export(m, image, "qat_cnn")


def qat_cnn_nofuse():
    """QAT without fuse_modules: the BatchNorms stay, so ConvBN is asked of a
    fake-quant weight."""
    export(qat(TinyCNN(), image, None), image, "qat_cnn_bn")


def qat_block():
    export(qat(TinyBlock(), tokens, None), tokens, "qat_block")


def partial(net, sample, name):
    """Fake quant around the Conv/Linear modules of a float net only."""
    if isinstance(net, TinyCNN):
        net.quant, net.dequant = nn.Identity(), nn.Identity()
    net = net.train()
    qc = tq.get_default_qat_qconfig(ENGINE, version=0)  # FakeQuantize: exportable
    for mod in net.modules():
        if isinstance(mod, (nn.Conv2d, nn.Linear)):
            mod.qconfig = qc
    # QuantWrapper-free: each quantized module gets its own input and output
    # fake quant (prepare_qat with the module's own qconfig and stubs)
    tq.propagate_qconfig_(net)
    tq.add_quant_dequant(net)
    tq.prepare_qat(net, inplace=True)
    calibrate(net, sample)
    net.apply(torch.ao.quantization.disable_observer)
    export(net.eval(), sample, name)


class TrtQuant(nn.Module):
    """The TensorRT form (pytorch-quantization's TensorQuantizer): a Conv or
    Linear whose input is fake-quantized per tensor and whose weight per
    output channel, int8 symmetric, scales from the largest magnitude; its
    output, BatchNorm and activation stay float."""

    def __init__(self, mod, amax=4.0):
        super().__init__()
        self.mod, self.scale = mod, amax / 127.0
        w = mod.weight.detach()
        # calibrated once, as the flow's amax buffers are: initializers
        self.register_buffer("wscale", w.abs().reshape(w.shape[0], -1).amax(1).clamp(min=1e-6) / 127.0)
        self.register_buffer("wzero", torch.zeros(w.shape[0], dtype=torch.int32))

    def forward(self, x):
        x = torch.fake_quantize_per_tensor_affine(x, self.scale, 0, -128, 127)
        w = torch.fake_quantize_per_channel_affine(self.mod.weight, self.wscale, self.wzero, 0, -128, 127)
        if isinstance(self.mod, nn.Conv2d):
            return self.mod._conv_forward(x, w, self.mod.bias)
        return nn.functional.linear(x, w, self.mod.bias)


def trt(net, sample, name):
    net.eval()
    if isinstance(net, TinyCNN):
        net.quant, net.dequant = nn.Identity(), nn.Identity()
    for parent in list(net.modules()):
        for key, mod in list(parent.named_children()):
            if isinstance(mod, (nn.Conv2d, nn.Linear)):
                setattr(parent, key, TrtQuant(mod))
    with torch.no_grad():  # BatchNorm's running statistics, not all 0 and 1
        for mod in net.modules():
            if isinstance(mod, nn.BatchNorm2d):
                mod.running_mean.uniform_(-0.5, 0.5)
                mod.running_var.uniform_(0.5, 1.5)
    export(net, sample, name)


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.backends.quantized.engine = ENGINE
    steps = [("eager_cnn", eager_cnn), ("fx_cnn", fx_cnn), ("qat_cnn", qat_cnn),
             ("qat_cnn_bn", qat_cnn_nofuse), ("qat_block", qat_block),
             ("partial_cnn", lambda: partial(TinyCNN(), image, "partial_cnn")),
             ("partial_block", lambda: partial(TinyBlock(), tokens, "partial_block")),
             ("trt_cnn", lambda: trt(TinyCNN(), image, "trt_cnn")),
             ("trt_block", lambda: trt(TinyBlock(), tokens, "trt_block"))]
    for name, step in steps:
        torch.manual_seed(len(name))
        try:
            step()
        except Exception as e:  # a flow this torch cannot export: say so, go on
            print("%s: not exported: %s" % (name, str(e).splitlines()[0] if str(e) else type(e).__name__),
                  file=sys.stderr)


if __name__ == "__main__":
    main()
