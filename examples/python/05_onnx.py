"""5. A model from ONNX: load, compile, run on numpy and torch inputs, check
against PyTorch, tune its tasks, compile again with the records.

Run: python3 examples/python/05_onnx.py [TRIALS_PER_TASK]   (32 by default)
"""
import sys

import numpy as np
import torch

import kiln

trials = int(sys.argv[1]) if len(sys.argv) > 1 else 32


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 16, 3, padding=1)
        self.fc = torch.nn.Linear(16, 10)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        return self.fc(x.mean(dim=(2, 3)))


torch.manual_seed(0)
net = Net().eval()
x = torch.randn(1, 3, 32, 32)
torch.onnx.export(net, x, "net.onnx", input_names=["x"], output_names=["y"], opset_version=13)

model = kiln.onnx.load("net.onnx", target="llvm -num-cores=2")
for t in model.tasks:
    print(f"task {t['name']}  x{t['weight']}  {t['signature']}")

run = model.compile()  # every task's default program
(y,) = run(x)          # torch in, numpy out
want = net(x).detach().numpy()
np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)

model.tune(db="net.db", trials_per_task=trials)
(y_tuned,) = model.compile(db="net.db")(x.numpy())
np.testing.assert_allclose(y_tuned, want, rtol=1e-4, atol=1e-5)
print("max |kiln - torch|:", float(np.abs(y_tuned - want).max()))
