"""Custom operators ``torch.ops.lego.*`` (the published API, §2.7): ``mm``, ``bmm``, ``addmm`` (eager: torch's,
autograd formulas equal to torch's, fake implementations for tracing) and ``permute`` (a flat gather
``out.flat[i] = x.flat[perm[i]]`` whose backward scatters the gradient back). ``torch_op`` registers a custom op
with a fake implementation. No Triton kernel here: ``lego::mm`` runs ``torch.mm`` on every device (docs/python.md,
"Differences")."""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import torch

__all__ = ["torch_op", "mm", "bmm", "addmm", "permute"]


def torch_op(qualname: str, *, mutates_args: Sequence[str] = (), fake: Optional[Callable[..., Any]] = None) -> Callable:
    """Decorator: ``fn`` registered as the custom op ``qualname`` (``"lego::name"``) with ``fake`` (default:
    ``fn`` itself, which must then work on fake tensors) as its fake implementation."""

    def register(fn: Callable[..., Any]) -> Any:
        op = torch.library.custom_op(qualname, mutates_args=tuple(mutates_args))(fn)
        op.register_fake(fake if fake is not None else fn)
        return op

    return register


def _mm_fake(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a.new_empty((a.shape[0], b.shape[1]))


def _bmm_fake(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a.new_empty((a.shape[0], a.shape[1], b.shape[2]))


def _addmm_fake(bias: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a.new_empty((a.shape[0], b.shape[1]))


@torch_op("lego::mm", fake=_mm_fake)
def mm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.mm(a, b)


@torch_op("lego::bmm", fake=_bmm_fake)
def bmm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.bmm(a, b)


@torch_op("lego::addmm", fake=_addmm_fake)
def addmm(bias: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.addmm(bias, a, b)


def _permute_fake(x: torch.Tensor, perm: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x)


@torch_op("lego::permute", fake=_permute_fake)
def permute(x: torch.Tensor, perm: torch.Tensor) -> torch.Tensor:
    if perm.numel() != x.numel():
        raise ValueError(f"lego::permute: {perm.numel()} positions for {x.numel()} elements")
    return x.reshape(-1)[perm.to(device=x.device, dtype=torch.int64)].reshape(x.shape).clone()


# --- autograd ------------------------------------------------------------------------------------------------


def _save_two(ctx: Any, inputs: Any, output: Any) -> None:
    ctx.save_for_backward(*inputs[-2:])


def _mm_backward(ctx: Any, grad: torch.Tensor) -> Any:
    a, b = ctx.saved_tensors
    return grad @ b.transpose(-1, -2), a.transpose(-1, -2) @ grad


def _addmm_setup(ctx: Any, inputs: Any, output: Any) -> None:
    bias, a, b = inputs
    ctx.save_for_backward(a, b)
    ctx.bias_shape = bias.shape


def _addmm_backward(ctx: Any, grad: torch.Tensor) -> Any:
    a, b = ctx.saved_tensors
    grad_bias = grad
    # The bias broadcasts to (m, n): its gradient sums over the broadcast axes, as torch.addmm's does.
    while grad_bias.dim() > len(ctx.bias_shape):
        grad_bias = grad_bias.sum(0)
    for axis, size in enumerate(ctx.bias_shape):
        if size == 1 and grad_bias.shape[axis] != 1:
            grad_bias = grad_bias.sum(axis, keepdim=True)
    return grad_bias, grad @ b.t(), a.t() @ grad


def _permute_setup(ctx: Any, inputs: Any, output: Any) -> None:
    ctx.save_for_backward(inputs[1])


def _permute_backward(ctx: Any, grad: torch.Tensor) -> Any:
    (perm,) = ctx.saved_tensors
    flat = grad.reshape(-1)
    out = torch.zeros_like(flat).index_add_(0, perm.to(device=flat.device, dtype=torch.int64), flat)
    return out.reshape(grad.shape), None


mm.register_autograd(_mm_backward, setup_context=_save_two)
bmm.register_autograd(_mm_backward, setup_context=_save_two)
addmm.register_autograd(_addmm_backward, setup_context=_addmm_setup)
permute.register_autograd(_permute_backward, setup_context=_permute_setup)
