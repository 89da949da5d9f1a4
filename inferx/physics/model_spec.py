"""A model's structure (`ModelSpec`: the published `config.json` fields inferx reads), the bytes of each dtype, and
`Catalog`, the dict every catalog is, which also resolves a key that carries its own entry."""

from __future__ import annotations

from dataclasses import dataclass

from inferx.deploy import ConfigError

DTYPE_BYTES: dict[str, float] = {
    "fp16": 2.0,
    "bf16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "fp4": 0.5,
    "int4": 0.5,
}


ATTENTION_KINDS = ("mha", "gqa", "mla")


@dataclass(frozen=True)
class ModelSpec:
    """A decoder described by the sizes the roofline needs.

    KV-cache numbers per layer per token are `kv_lora_rank + d_rope` for multi-head
    latent attention (MLA) and `2 · n_kv_heads · d_head` for multi-head (MHA) and
    grouped-query (GQA) attention. Layers listed in `window_layers` keep only the
    last `sliding_window` tokens. Layers listed in `state_layers` (linear attention,
    as in Qwen3-Next's Gated DeltaNet, or Mamba-2) keep no KV cache but a recurrent state of a
    fixed size, `state_bytes` per sequence over all of them, whatever the context.
    Mixture-of-experts (MoE) layers are all layers after the first `n_dense_layers`.
    """

    name: str
    p_total: float  # parameters held in HBM
    p_active: float  # parameters touched per token (FLOPs per token = 2·p_active)
    n_layers: int
    d_model: int
    n_q_heads: int
    d_head: int  # per-head dimension; also the d_h of the quadratic prefill term
    attention: str = "gqa"  # "mha", "gqa" or "mla"
    n_kv_heads: int = 0  # MHA/GQA key/value heads
    kv_lora_rank: int = 0  # MLA: compressed KV latent d_c
    d_rope: int = 0  # MLA: decoupled RoPE key d_r, cached beside the latent
    sliding_window: int = 0  # tokens a windowed layer keeps (0: no windowed layers)
    window_layers: tuple[int, ...] = ()  # 0-based indices of the windowed layers
    state_layers: tuple[int, ...] = ()  # 0-based indices of the layers with a recurrent state instead of a KV cache
    state_bytes: float = 0.0  # that state's bytes per sequence, over all those layers
    n_routed_experts: int = 0
    experts_per_token: int = 0
    n_shared_experts: int = 0
    n_dense_layers: int = 0  # leading layers with a dense FFN instead of experts
    expert_params: float = 0.0  # parameters of one routed expert in one layer
    vocab_size: int = 0
    # Tensor-parallel all-reduces in one step where they are not two a layer (after its attention and its MLP):
    # Nemotron-H's blocks are each one mixer, MLP or set of experts, and each ends in one. 0: two a layer.
    blocks: int = 0
    source: str = ""

    def __post_init__(self):
        if self.attention not in ATTENTION_KINDS:
            raise ValueError(f"{self.name}: attention must be one of {ATTENTION_KINDS}, not {self.attention!r}")
        if self.attention == "mla" and self.kv_lora_rank <= 0:
            raise ValueError(f"{self.name}: MLA needs kv_lora_rank > 0")
        if self.attention == "mha" and self.n_kv_heads != self.n_q_heads:
            raise ValueError(f"{self.name}: MHA has as many KV heads as query heads")
        grouped = 0 < self.n_kv_heads < self.n_q_heads and self.n_q_heads % self.n_kv_heads == 0
        if self.attention == "gqa" and not grouped:
            raise ValueError(f"{self.name}: GQA needs fewer KV heads than query heads, dividing them")
        layers = self.window_layers
        distinct = all(0 <= i < self.n_layers for i in layers) and len(set(layers)) == len(layers)
        if not distinct or bool(layers) != (self.sliding_window > 0):
            raise ValueError(f"{self.name}: windowed layers need a window and distinct indices below {self.n_layers}")
        state = self.state_layers
        distinct = all(0 <= i < self.n_layers for i in state) and len(set(state)) == len(state)
        if not distinct or set(state) & set(layers) or bool(state) != (self.state_bytes > 0):
            raise ValueError(f"{self.name}: recurrent layers need a state and distinct indices of no windowed layer")
        if len(state) == self.n_layers:
            raise ValueError(f"{self.name}: needs at least one attention layer")
        if self.n_routed_experts and not 0 < self.experts_per_token <= self.n_routed_experts:
            raise ValueError(f"{self.name}: experts per token must be in 1…{self.n_routed_experts}")
        if self.blocks and self.blocks < self.n_layers:
            raise ValueError(f"{self.name}: blocks count the layers' mixers, so at least {self.n_layers}")
        if not 0 < self.p_active <= self.p_total:
            raise ValueError(f"{self.name}: need 0 < active ≤ total parameters")

    @property
    def kv_latent(self) -> int:
        """MLA: d_c + d_r numbers cached per layer per token (0 for MHA/GQA)."""
        return self.kv_lora_rank + self.d_rope if self.attention == "mla" else 0

    @property
    def kv_elements_per_layer(self) -> int:
        return self.kv_latent if self.attention == "mla" else 2 * self.n_kv_heads * self.d_head

    @property
    def n_window_layers(self) -> int:
        return len(self.window_layers)

    @property
    def n_kv_layers(self) -> int:
        """The layers that keep a KV cache: all but the recurrent ones."""
        return self.n_layers - len(self.state_layers)

    @property
    def n_full_layers(self) -> int:
        return self.n_kv_layers - self.n_window_layers

    @property
    def allreduces(self) -> int:
        """All-reduces a tensor-parallel step makes: one at the end of each block."""
        return self.blocks or 2 * self.n_layers

    @property
    def is_moe(self) -> bool:
        return self.n_routed_experts > 0

    @property
    def n_moe_layers(self) -> int:
        return self.n_layers - self.n_dense_layers if self.is_moe else 0


KEY_MARK = "~"  # between a carried key's readable name and its payload (model_config.carry); catalog keys never hold it


class Catalog(dict):
    """A catalog's entries by key, and beside them any entry whose key carries it (`model_config.carry`): looked
    up and checked like a catalog key, never listed, so one user's entry does not appear in another's menus.
    `reader(key)` returns the entry a key carries, None for a key that does not look like one, and raises
    ConfigError for one that does but cannot be read. `what` names an entry ("model") and `file` the file such
    entries come from ("config.json")."""

    def __init__(self, entries: dict, reader, what: str, file: str):
        super().__init__(entries)
        self.reader, self.what, self.file = reader, what, file

    def _carried(self, key):
        return self.reader(key) if isinstance(key, str) and KEY_MARK in key else None

    def __missing__(self, key):
        try:
            entry = self._carried(key)
        except ConfigError:
            entry = None
        if entry is None:
            raise KeyError(key)
        return entry

    def __contains__(self, key) -> bool:
        return self.get(key) is not None

    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default

    def refusal(self, key: str) -> str | None:
        """Why a key that looks like a carried entry is refused (None for any other key: it is just not listed)."""
        try:
            self._carried(key)
        except ConfigError as err:
            return f"is not a readable {self.what} key: {err}"
        return None
