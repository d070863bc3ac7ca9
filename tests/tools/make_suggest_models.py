#!/usr/bin/python3
"""make_suggest_models.py — the two PyTorch exports test_suggest.sh asks
`suggest` about, as torch.onnx.export writes them (the conventions of
tests/peer/torch_exports.py: exporter-made node names, random weights with
fixed seeds, eval mode, dynamic batch, byte-for-byte reproducible for one
torch version), committed so that the tests need no torch:

  torch_yolox_nano_opset13.onnx  YOLOX-nano's layout (CSPDarknet with depthwise
      convolutions, SPP, the PAFPN neck, the decoupled head): every BaseConv
      a Conv -> BatchNorm (folded into the Conv by the export) -> SiLU
      (Sigmoid -> Mul), at a quarter of nano's widths and a 64x64 image; its
      Conv -> Sigmoid -> Mul blocks are where they are in YOLOX-nano, 104.
  torch_bert_opset17.onnx  a BERT encoder as HF transformers writes it: word,
      position and token-type embeddings, LayerNorm, two layers of
      self-attention (Q, K, V Linear, MatMul -> Div -> Add(mask) -> Softmax
      -> MatMul) and a feed-forward with the exact GELU (MatMul -> Add(bias)
      -> Div -> Erf -> Add -> Mul -> Mul), hidden 32, 4 heads; batch and
      sequence dynamic.

usage: make_suggest_models.py [OUTDIR]     default tests/data/suggest
"""
import io
import math
import os
import sys

import onnx
import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "data", "suggest")


# ---- YOLOX-nano ---------------------------------------------------------------
# YOLOX's own modules (yolox/models/network_blocks.py, darknet.py,
# yolo_pafpn.py, yolo_head.py) with nano's depth (0.33) and depthwise
# convolutions; widths a quarter of nano's (base 4 channels, not 16).

class BaseConv(nn.Module):
    def __init__(self, cin, cout, k, stride=1, groups=1):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, stride, (k - 1) // 2, groups=groups, bias=False)
        self.bn = nn.BatchNorm2d(cout)
        self.act = nn.SiLU()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class DWConv(nn.Module):
    def __init__(self, cin, cout, k, stride=1):
        super().__init__()
        self.dconv = BaseConv(cin, cin, k, stride, groups=cin)
        self.pconv = BaseConv(cin, cout, 1)

    def forward(self, x):
        return self.pconv(self.dconv(x))


class Bottleneck(nn.Module):
    def __init__(self, cin, cout, shortcut):
        super().__init__()
        self.conv1 = BaseConv(cin, cout, 1)
        self.conv2 = DWConv(cout, cout, 3)
        self.use_add = shortcut and cin == cout

    def forward(self, x):
        y = self.conv2(self.conv1(x))
        return y + x if self.use_add else y


class CSPLayer(nn.Module):
    def __init__(self, cin, cout, n, shortcut=True):
        super().__init__()
        hidden = cout // 2
        self.conv1 = BaseConv(cin, hidden, 1)
        self.conv2 = BaseConv(cin, hidden, 1)
        self.conv3 = BaseConv(2 * hidden, cout, 1)
        self.m = nn.Sequential(*[Bottleneck(hidden, hidden, shortcut) for _ in range(n)])

    def forward(self, x):
        return self.conv3(torch.cat((self.m(self.conv1(x)), self.conv2(x)), dim=1))


class SPPBottleneck(nn.Module):
    def __init__(self, cin, cout, ks=(5, 9, 13)):
        super().__init__()
        hidden = cin // 2
        self.conv1 = BaseConv(cin, hidden, 1)
        self.m = nn.ModuleList(nn.MaxPool2d(k, 1, k // 2) for k in ks)
        self.conv2 = BaseConv(hidden * (len(ks) + 1), cout, 1)

    def forward(self, x):
        x = self.conv1(x)
        return self.conv2(torch.cat([x] + [m(x) for m in self.m], dim=1))


class Focus(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = BaseConv(cin * 4, cout, 3)

    def forward(self, x):
        tl, tr = x[..., ::2, ::2], x[..., 1::2, ::2]
        bl, br = x[..., ::2, 1::2], x[..., 1::2, 1::2]
        return self.conv(torch.cat((tl, bl, tr, br), dim=1))


class CSPDarknet(nn.Module):
    def __init__(self, base, depth):
        super().__init__()
        c, d = base, max(round(3 * depth), 1)
        self.stem = Focus(3, c)
        self.dark2 = nn.Sequential(DWConv(c, c * 2, 3, 2), CSPLayer(c * 2, c * 2, d))
        self.dark3 = nn.Sequential(DWConv(c * 2, c * 4, 3, 2), CSPLayer(c * 4, c * 4, d * 3))
        self.dark4 = nn.Sequential(DWConv(c * 4, c * 8, 3, 2), CSPLayer(c * 8, c * 8, d * 3))
        self.dark5 = nn.Sequential(DWConv(c * 8, c * 16, 3, 2), SPPBottleneck(c * 16, c * 16),
                                   CSPLayer(c * 16, c * 16, d, shortcut=False))

    def forward(self, x):
        x = self.dark2(self.stem(x))
        d3 = self.dark3(x)
        d4 = self.dark4(d3)
        return d3, d4, self.dark5(d4)


class YOLOPAFPN(nn.Module):
    def __init__(self, base, depth):
        super().__init__()
        c3, c4, c5 = base * 4, base * 8, base * 16
        d = max(round(3 * depth), 1)
        self.backbone = CSPDarknet(base, depth)
        self.upsample = nn.Upsample(scale_factor=2, mode="nearest")
        self.lateral_conv0 = BaseConv(c5, c4, 1)
        self.C3_p4 = CSPLayer(2 * c4, c4, d, False)
        self.reduce_conv1 = BaseConv(c4, c3, 1)
        self.C3_p3 = CSPLayer(2 * c3, c3, d, False)
        self.bu_conv2 = DWConv(c3, c3, 3, 2)
        self.C3_n3 = CSPLayer(2 * c3, c4, d, False)
        self.bu_conv1 = DWConv(c4, c4, 3, 2)
        self.C3_n4 = CSPLayer(2 * c4, c5, d, False)

    def forward(self, x):
        x2, x1, x0 = self.backbone(x)
        fpn_out0 = self.lateral_conv0(x0)
        f_out0 = self.C3_p4(torch.cat([self.upsample(fpn_out0), x1], 1))
        fpn_out1 = self.reduce_conv1(f_out0)
        pan_out2 = self.C3_p3(torch.cat([self.upsample(fpn_out1), x2], 1))
        pan_out1 = self.C3_n3(torch.cat([self.bu_conv2(pan_out2), fpn_out1], 1))
        pan_out0 = self.C3_n4(torch.cat([self.bu_conv1(pan_out1), fpn_out0], 1))
        return pan_out2, pan_out1, pan_out0


class YOLOXHead(nn.Module):
    def __init__(self, base, num_classes):
        super().__init__()
        hidden = base * 4
        self.stems, self.cls_convs, self.reg_convs = nn.ModuleList(), nn.ModuleList(), nn.ModuleList()
        self.cls_preds, self.reg_preds, self.obj_preds = nn.ModuleList(), nn.ModuleList(), nn.ModuleList()
        for cin in (base * 4, base * 8, base * 16):
            self.stems.append(BaseConv(cin, hidden, 1))
            self.cls_convs.append(nn.Sequential(DWConv(hidden, hidden, 3), DWConv(hidden, hidden, 3)))
            self.reg_convs.append(nn.Sequential(DWConv(hidden, hidden, 3), DWConv(hidden, hidden, 3)))
            self.cls_preds.append(nn.Conv2d(hidden, num_classes, 1))
            self.reg_preds.append(nn.Conv2d(hidden, 4, 1))
            self.obj_preds.append(nn.Conv2d(hidden, 1, 1))

    def forward(self, feats):
        outs = []
        for k, x in enumerate(feats):
            x = self.stems[k](x)
            cls_feat, reg_feat = self.cls_convs[k](x), self.reg_convs[k](x)
            out = torch.cat([self.reg_preds[k](reg_feat), self.obj_preds[k](reg_feat).sigmoid(),
                             self.cls_preds[k](cls_feat).sigmoid()], 1)
            outs.append(out.flatten(start_dim=2))
        return torch.cat(outs, dim=2).permute(0, 2, 1)


class YOLOXNano(nn.Module):
    def __init__(self, base=4, depth=0.33, num_classes=4):
        super().__init__()
        self.backbone = YOLOPAFPN(base, depth)
        self.head = YOLOXHead(base, num_classes)

    def forward(self, x):
        return self.head(self.backbone(x))


def yolox_nano():
    return YOLOXNano(), {"inputs": (torch.randn(1, 3, 64, 64),), "names": ["images"],
                         "dynamic": {"images": {0: "batch"}, "output": {0: "batch"}}}


# ---- BERT ---------------------------------------------------------------------
# HF transformers' BertModel, written out (modeling_bert.py's classes, the
# same ops in the same order): absolute positions, the additive mask
# (1 - mask) * -10000, erf GELU, post-LayerNorm.

class BertLayer(nn.Module):
    def __init__(self, d, heads, ffn):
        super().__init__()
        self.heads, self.dh = heads, d // heads
        self.query, self.key, self.value = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.attn_out, self.attn_norm = nn.Linear(d, d), nn.LayerNorm(d, eps=1e-12)
        self.intermediate, self.output = nn.Linear(d, ffn), nn.Linear(ffn, d)
        self.out_norm = nn.LayerNorm(d, eps=1e-12)

    def split(self, x):
        return x.view(x.size(0), x.size(1), self.heads, self.dh).permute(0, 2, 1, 3)

    def forward(self, x, mask):
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.dh) + mask
        ctx = torch.matmul(scores.softmax(-1), v).permute(0, 2, 1, 3).contiguous()
        ctx = ctx.view(ctx.size(0), ctx.size(1), self.heads * self.dh)
        x = self.attn_norm(self.attn_out(ctx) + x)
        h = self.intermediate(x)
        h = h * 0.5 * (1.0 + torch.erf(h / math.sqrt(2.0)))
        return self.out_norm(self.output(h) + x)


class Bert(nn.Module):
    def __init__(self, vocab=64, d=32, heads=4, ffn=128, layers=2, max_pos=32):
        super().__init__()
        self.word, self.position, self.token_type = nn.Embedding(vocab, d), nn.Embedding(max_pos, d), \
            nn.Embedding(2, d)
        self.norm = nn.LayerNorm(d, eps=1e-12)
        self.layers = nn.ModuleList(BertLayer(d, heads, ffn) for _ in range(layers))

    def forward(self, ids, mask):
        pos = torch.arange(ids.shape[1], dtype=torch.long).unsqueeze(0)
        x = self.norm(self.word(ids) + self.position(pos) + self.token_type(torch.zeros_like(ids)))
        ext = (1.0 - mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, ext)
        return x


def bert():
    return Bert(), {"inputs": (torch.randint(0, 64, (2, 6)), torch.ones(2, 6, dtype=torch.long)),
                    "names": ["input_ids", "attention_mask"],
                    "dynamic": {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"},
                                "output": {0: "batch", 1: "seq"}}}


MODELS = [("yolox_nano", yolox_nano, 13), ("bert", bert, 17)]


def randomize(model):
    """Noise on every weight and batch-norm statistic (torch_exports.py's:
    no two tensors equal, so the exporter shares none)."""
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                m.running_mean.add_(torch.randn_like(m.running_mean) * 0.05)
                m.running_var.mul_(torch.rand_like(m.running_var) + 0.5)


def export(build, opset):
    torch.manual_seed(0)
    model, spec = build()
    randomize(model)
    model.eval()
    buf = io.BytesIO()
    torch.onnx.export(model, spec["inputs"], buf, opset_version=opset, input_names=spec["names"],
                      output_names=["output"], dynamic_axes=spec["dynamic"], do_constant_folding=True)
    m = onnx.load_from_string(buf.getvalue())
    onnx.checker.check_model(m)
    return buf.getvalue()


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, build, opset in MODELS:
        data = export(build, opset)
        path = os.path.join(OUT, "torch_%s_opset%d.onnx" % (name, opset))
        with open(path, "wb") as f:
            f.write(data)
        print("%-50s %8d bytes" % (os.path.relpath(path), len(data)))


if __name__ == "__main__":
    main()
