# tests/bench/gen_vit.py — a real PyTorch export for `make bench`: torchvision's
# ViT-B/16 (random weights, 86M parameters, ~346 MB inline) exported by
# torch.onnx at opset 14. Written to the bench's work dir, never committed.
# Usage: gen_vit.py OUT.onnx
import sys

import torch
from torchvision.models import vit_b_16


def main():
    torch.manual_seed(0)
    model = vit_b_16(weights=None).eval()
    x = torch.randn(1, 3, 224, 224)
    # autograd stays on: under no_grad torch 1.13 routes attention to a fused
    # kernel that has no ONNX export
    torch.onnx.export(model, x, sys.argv[1], opset_version=14,
                      input_names=["image"], output_names=["logits"])


if __name__ == "__main__":
    main()
