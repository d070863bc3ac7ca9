#!/usr/bin/python3
"""make_cann_models.py [OUTDIR] — small exports (tiny channel counts, random
weights) of the networks real ATC records come from, for rules/cann:
yolov5s_like.onnx (Conv+BN+SiLU, C3, SPPF, Upsample/Concat neck, the
Detect head's Sigmoid, split, (wh*2)**2), yolov8n_like.onnx (C2f, SPPF,
the anchor-free head), leaky_detector.onnx (YOLOv3-tiny style:
Conv+BN+LeakyRelu, MaxPool, Upsample), transformer_block.onnx (LayerNorm,
MatMul+Add, Softmax, GELU). torch.onnx.export in eval mode folds each
BatchNorm into its Conv, as the real exports are. Needs python3-torch."""
import os
import sys

import torch
import torch.nn as nn

torch.manual_seed(0)


def conv(c1, c2, k=1, s=1, act="silu"):
    a = {"silu": nn.SiLU(), "leaky": nn.LeakyReLU(0.1)}[act]
    return nn.Sequential(nn.Conv2d(c1, c2, k, s, k // 2, bias=False), nn.BatchNorm2d(c2), a)


class Bottleneck(nn.Module):
    def __init__(self, c, shortcut=True):
        super().__init__()
        self.cv1, self.cv2, self.add = conv(c, c, 1), conv(c, c, 3), shortcut

    def forward(self, x):
        y = self.cv2(self.cv1(x))
        return x + y if self.add else y


class C3(nn.Module):
    def __init__(self, c1, c2, n=1, shortcut=True):
        super().__init__()
        h = c2 // 2
        self.cv1, self.cv2, self.cv3 = conv(c1, h), conv(c1, h), conv(2 * h, c2)
        self.m = nn.Sequential(*[Bottleneck(h, shortcut) for _ in range(n)])

    def forward(self, x):
        return self.cv3(torch.cat([self.m(self.cv1(x)), self.cv2(x)], 1))


class C2f(nn.Module):
    def __init__(self, c1, c2, n=1, shortcut=True):
        super().__init__()
        self.h = c2 // 2
        self.cv1, self.cv2 = conv(c1, 2 * self.h), conv((2 + n) * self.h, c2)
        self.m = nn.ModuleList(Bottleneck(self.h, shortcut) for _ in range(n))

    def forward(self, x):
        y = list(self.cv1(x).split((self.h, self.h), 1))
        y.extend(m(y[-1]) for m in self.m)
        return self.cv2(torch.cat(y, 1))


class SPPF(nn.Module):
    def __init__(self, c1, c2):
        super().__init__()
        self.cv1, self.cv2 = conv(c1, c1 // 2), conv(c1 * 2, c2)
        self.m = nn.MaxPool2d(5, 1, 2)

    def forward(self, x):
        x = self.cv1(x)
        y1 = self.m(x)
        y2 = self.m(y1)
        return self.cv2(torch.cat([x, y1, y2, self.m(y2)], 1))


class YoloNeck(nn.Module):
    """backbone (P3, P4, P5), PAN neck; block is C3 or C2f."""
    def __init__(self, block, w=8):
        super().__init__()
        self.stem = nn.Sequential(conv(3, w, 3, 2), conv(w, 2 * w, 3, 2), block(2 * w, 2 * w))
        self.p3 = nn.Sequential(conv(2 * w, 4 * w, 3, 2), block(4 * w, 4 * w))
        self.p4 = nn.Sequential(conv(4 * w, 8 * w, 3, 2), block(8 * w, 8 * w))
        self.p5 = nn.Sequential(conv(8 * w, 8 * w, 3, 2), block(8 * w, 8 * w), SPPF(8 * w, 8 * w))
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.td4, self.td3 = block(16 * w, 8 * w, shortcut=False), block(12 * w, 4 * w, shortcut=False)
        self.dn3, self.bu4 = conv(4 * w, 4 * w, 3, 2), block(12 * w, 8 * w, shortcut=False)
        self.dn4, self.bu5 = conv(8 * w, 8 * w, 3, 2), block(16 * w, 8 * w, shortcut=False)

    def forward(self, x):
        p3 = self.p3(self.stem(x))
        p4 = self.p4(p3)
        p5 = self.p5(p4)
        t4 = self.td4(torch.cat([self.up(p5), p4], 1))
        t3 = self.td3(torch.cat([self.up(t4), p3], 1))
        b4 = self.bu4(torch.cat([self.dn3(t3), t4], 1))
        b5 = self.bu5(torch.cat([self.dn4(b4), p5], 1))
        return [t3, b4, b5]


class YoloV5Like(nn.Module):
    def __init__(self, w=4, nc=2):
        super().__init__()
        self.body = YoloNeck(C3, w)
        self.no = nc + 5
        self.heads = nn.ModuleList(nn.Conv2d(c, 3 * self.no, 1) for c in (4 * w, 8 * w, 8 * w))

    def forward(self, x):
        out = []
        for f, h in zip(self.body(x), self.heads):
            b, _, ny, nx = f.shape
            y = h(f).view(b, 3, self.no, ny, nx).permute(0, 1, 3, 4, 2).sigmoid()
            xy, wh, conf = y.split((2, 2, self.no - 4), 4)
            out.append(torch.cat((xy * 2, (wh * 2) ** 2, conf), 4).view(b, -1, self.no))
        return torch.cat(out, 1)


class YoloV8Like(nn.Module):
    def __init__(self, w=4, nc=2):
        super().__init__()
        self.body = YoloNeck(C2f, w)
        self.box = nn.ModuleList(nn.Sequential(conv(c, w, 3), conv(w, w, 3), nn.Conv2d(w, 16, 1))
                                 for c in (4 * w, 8 * w, 8 * w))
        self.cls = nn.ModuleList(nn.Sequential(conv(c, w, 3), conv(w, w, 3), nn.Conv2d(w, nc, 1))
                                 for c in (4 * w, 8 * w, 8 * w))

    def forward(self, x):
        out = [torch.cat((b(f), c(f)), 1).flatten(2) for f, b, c in zip(self.body(x), self.box, self.cls)]
        y = torch.cat(out, 2)
        box, cls = y.split((16, y.shape[1] - 16), 1)
        return torch.cat((box, cls.sigmoid()), 1)


class LeakyDetector(nn.Module):
    """YOLOv3-tiny style: Conv+BN+LeakyRelu and MaxPool, one upsampled branch."""
    def __init__(self, w=2, no=21):
        super().__init__()
        layers, c = [], 3
        for i in range(5):
            layers += [conv(c, w << i, 3, act="leaky"), nn.MaxPool2d(2, 2)]
            c = w << i
        self.back = nn.Sequential(*layers[:-2])
        self.deep = nn.Sequential(*layers[-2:], conv(c, 2 * c, 3, act="leaky"), conv(2 * c, c, 1, act="leaky"))
        self.head1 = nn.Sequential(conv(c, 2 * c, 3, act="leaky"), nn.Conv2d(2 * c, no, 1))
        self.lat = conv(c, c // 2, 1, act="leaky")
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.head2 = nn.Sequential(conv(c // 2 + c // 2, c, 3, act="leaky"), nn.Conv2d(c, no, 1))

    def forward(self, x):
        f = self.back(x)
        d = self.deep(f)
        return self.head1(d), self.head2(torch.cat([self.up(self.lat(d)), f], 1))


class TransformerBlock(nn.Module):
    def __init__(self, d=16, heads=2):
        super().__init__()
        self.h, self.dk = heads, d // heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.act = nn.GELU()

    def forward(self, x):
        b, n, d = x.shape
        y = self.ln1(x)
        q, k, v = (m(y).view(b, n, self.h, self.dk).transpose(1, 2) for m in (self.q, self.k, self.v))
        a = torch.softmax(q @ k.transpose(-2, -1) / (self.dk ** 0.5), -1)
        x = x + self.o((a @ v).transpose(1, 2).reshape(b, n, d))
        return x + self.fc2(self.act(self.fc1(self.ln2(x))))


def export(model, shape, path, opset):
    model.eval()
    torch.onnx.export(model, torch.randn(*shape), path, opset_version=opset, input_names=["images"],
                      output_names=["output"], do_constant_folding=True)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    export(YoloV5Like(), (1, 3, 64, 64), os.path.join(out, "yolov5s_like.onnx"), 13)
    export(YoloV8Like(), (1, 3, 64, 64), os.path.join(out, "yolov8n_like.onnx"), 13)
    export(LeakyDetector(), (1, 3, 64, 64), os.path.join(out, "leaky_detector.onnx"), 13)
    export(TransformerBlock(), (1, 8, 16), os.path.join(out, "transformer_block.onnx"), 13)


if __name__ == "__main__":
    main()
