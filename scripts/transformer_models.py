"""The transformers of scripts/export_models, in plain PyTorch.

BERT and GPT-2 are written here as their reference implementations
compute them (the same operators in the same order, so the same ONNX
patterns: nn.Linear's MatMul+Add for BERT, GPT-2's Conv1D as a Gemm
between reshapes, GPT-2's causal mask as a Where over a sliced constant,
its GELU in the tanh form, BERT's in the Erf form); Debian's python3-torch
has no packaged definition of either. ViT comes from torchvision.
Weights are random: nothing is downloaded.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F


class BertConfig:
    def __init__(self, vocab=30522, hidden=768, layers=12, heads=12, ffn=3072, max_positions=512):
        self.vocab, self.hidden, self.layers, self.heads = vocab, hidden, layers, heads
        self.ffn, self.max_positions = ffn, max_positions


class BertLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.heads, self.head_dim = c.heads, c.hidden // c.heads
        self.query, self.key, self.value = (nn.Linear(c.hidden, c.hidden) for _ in range(3))
        self.attn_out = nn.Linear(c.hidden, c.hidden)
        self.attn_norm = nn.LayerNorm(c.hidden, eps=1e-12)
        self.intermediate = nn.Linear(c.hidden, c.ffn)
        self.output = nn.Linear(c.ffn, c.hidden)
        self.out_norm = nn.LayerNorm(c.hidden, eps=1e-12)

    def split_heads(self, x):
        b, s, _ = x.shape
        return x.view(b, s, self.heads, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, x, mask):
        q, k, v = (self.split_heads(f(x)) for f in (self.query, self.key, self.value))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim) + mask
        ctx = torch.matmul(F.softmax(scores, dim=-1), v).permute(0, 2, 1, 3).contiguous()
        ctx = ctx.view(x.shape)
        h = self.attn_norm(self.attn_out(ctx) + x)
        return self.out_norm(self.output(F.gelu(self.intermediate(h))) + h)


class Bert(nn.Module):
    """BERT's encoder: (input_ids, attention_mask) -> the last hidden state."""

    def __init__(self, c):
        super().__init__()
        self.word = nn.Embedding(c.vocab, c.hidden)
        self.position = nn.Embedding(c.max_positions, c.hidden)
        self.token_type = nn.Embedding(2, c.hidden)
        self.norm = nn.LayerNorm(c.hidden, eps=1e-12)
        self.layers = nn.ModuleList(BertLayer(c) for _ in range(c.layers))
        for m in self.modules():  # BERT's initializer range: N(0, 0.02)
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, std=0.02)
        self.register_buffer("position_ids", torch.arange(c.max_positions).unsqueeze(0))

    def forward(self, input_ids, attention_mask):
        s = input_ids.shape[1]
        x = self.word(input_ids) + self.position(self.position_ids[:, :s]) + self.token_type.weight[0]
        x = self.norm(x)
        mask = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, mask)
        return x


class Gpt2Config:
    def __init__(self, vocab=50257, hidden=768, layers=12, heads=12, positions=1024):
        self.vocab, self.hidden, self.layers, self.heads, self.positions = vocab, hidden, layers, heads, positions


class Conv1D(nn.Module):
    """GPT-2's linear layer: weight [in, out], an addmm between reshapes."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_in, n_out) * 0.02)
        self.bias = nn.Parameter(torch.randn(n_out) * 0.02)

    def forward(self, x):
        out = x.shape[:-1] + (self.weight.shape[1],)
        return torch.addmm(self.bias, x.view(-1, x.shape[-1]), self.weight).view(out)


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class Gpt2Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.heads, self.head_dim = c.heads, c.hidden // c.heads
        self.ln_1, self.ln_2 = nn.LayerNorm(c.hidden), nn.LayerNorm(c.hidden)
        self.c_attn, self.c_proj = Conv1D(c.hidden, 3 * c.hidden), Conv1D(c.hidden, c.hidden)
        self.c_fc, self.mlp_proj = Conv1D(c.hidden, 4 * c.hidden), Conv1D(4 * c.hidden, c.hidden)
        self.register_buffer("bias", torch.tril(torch.ones(c.positions, c.positions, dtype=torch.bool))
                             .view(1, 1, c.positions, c.positions))

    def split_heads(self, x):
        b, s, _ = x.shape
        return x.view(b, s, self.heads, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, x, past_k=None, past_v=None):
        h = self.ln_1(x)
        q, k, v = self.c_attn(h).split(x.shape[-1], dim=2)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        if past_k is not None:
            k, v = torch.cat((past_k, k), dim=-2), torch.cat((past_v, v), dim=-2)
        w = torch.matmul(q, k.transpose(-1, -2)) / torch.full([], v.shape[-1] ** 0.5)
        s_q, s_k = q.shape[-2], k.shape[-2]
        causal = self.bias[:, :, s_k - s_q:s_k, :s_k]
        w = torch.where(causal, w, torch.full([], torch.finfo(w.dtype).min))
        a = torch.matmul(F.softmax(w, dim=-1), v).permute(0, 2, 1, 3).contiguous()
        x = x + self.c_proj(a.view(x.shape))
        x = x + self.mlp_proj(gelu_tanh(self.c_fc(self.ln_2(x))))
        return x, k, v


class Gpt2(nn.Module):
    """GPT-2's decoder and its tied head. Without past keys and values:
    input_ids -> logits (a prefill pass). With them (one tensor per layer
    each, [batch, heads, past, head_dim]): one new token -> logits and the
    present keys and values (a decode step)."""

    def __init__(self, c):
        super().__init__()
        self.wte = nn.Embedding(c.vocab, c.hidden)
        self.wpe = nn.Embedding(c.positions, c.hidden)
        nn.init.normal_(self.wte.weight, std=0.02)
        nn.init.normal_(self.wpe.weight, std=0.01)
        self.blocks = nn.ModuleList(Gpt2Block(c) for _ in range(c.layers))
        self.ln_f = nn.LayerNorm(c.hidden)

    def forward(self, input_ids, *past):
        past_len = past[0].shape[-2] if past else 0
        positions = torch.arange(past_len, past_len + input_ids.shape[1]).unsqueeze(0)
        x = self.wte(input_ids) + self.wpe(positions)
        presents = []
        for i, block in enumerate(self.blocks):
            x, k, v = block(x, *(past[2 * i:2 * i + 2] if past else ()))
            presents += [k, v]
        logits = F.linear(self.ln_f(x), self.wte.weight)
        return (logits, *presents) if past else logits


def vit(image_size=224, patch_size=16, layers=12, heads=12, hidden=768, mlp=3072, classes=1000):
    import torchvision
    m = torchvision.models.vision_transformer.VisionTransformer(
        image_size=image_size, patch_size=patch_size, num_layers=layers, num_heads=heads,
        hidden_dim=hidden, mlp_dim=mlp, num_classes=classes)
    # torchvision starts the classifier at zero, which would make every
    # output 0 and any comparison of outputs vacuous.
    nn.init.normal_(m.heads.head.weight, std=0.02)
    return m
