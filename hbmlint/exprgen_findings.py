"""The generated functions (exprgen) of the built-in rules' wordings and fixes, by their
text and the names of the rule's parameters that it holds, for the flat names FLAT,
compiled with the package (rules._Program.finding_evaluator). Written by
tools/write_exprgen_builtin.py: do not edit.
"""

# ruff: noqa
# fmt: off
import ast

from .expressions import OWN_OPERATORS
from .expressions import _attribute, _name_attribute
from .expressions import called_function as _function
from .quantity import Quantity as _Quantity

# the flat names both modules are written for, by this tool at once
from .exprgen_builtin import FLAT

FUNCTIONS = {
    ('", runtime overhead and TGI\'s warm-up batch" if serving.engine == "tgi" else " and runtime overhead"', frozenset(())):
        lambda names, functions, params, _expression='", runtime overhead and TGI\'s warm-up batch" if serving.engine == "tgi" else " and runtime overhead"': (", runtime overhead and TGI's warm-up batch" if (names['serving.engine'] == 'tgi') else ' and runtime overhead'),
    ('"fp8"', frozenset(())):
        lambda names, functions, params, _expression='"fp8"': 'fp8',
    ('"ngram"', frozenset(())):
        lambda names, functions, params, _expression='"ngram"': 'ngram',
    ('"the engine may fail to start (at the estimate\'s low edge not one KV block is left) or start with max_seq_len lowered to what the cache holds" if kv.tokens_low <= 0 else ("the engine starts and lowers max_seq_len to what the cache holds" if kv.tokens_high < serving.max_model_len else "the engine starts and may lower max_seq_len to what the cache holds")', frozenset(())):
        lambda names, functions, params, _expression='"the engine may fail to start (at the estimate\'s low edge not one KV block is left) or start with max_seq_len lowered to what the cache holds" if kv.tokens_low <= 0 else ("the engine starts and lowers max_seq_len to what the cache holds" if kv.tokens_high < serving.max_model_len else "the engine starts and may lower max_seq_len to what the cache holds")': ("the engine may fail to start (at the estimate's low edge not one KV block is left) or start with max_seq_len lowered to what the cache holds" if (_v1._magnitude <= 0 if type(_v1 := names['kv.tokens_low']) is _Quantity and _v1._units._dimensions else _v1 <= 0) else ('the engine starts and lowers max_seq_len to what the cache holds' if ((names['kv.tokens_high'] < names['serving.max_model_len']) if (_kept := names._results) is None else _kept['kv.tokens_high Lt serving.max_model_len'] if 'kv.tokens_high Lt serving.max_model_len' in _kept else _kept.setdefault('kv.tokens_high Lt serving.max_model_len', (names['kv.tokens_high'] < names['serving.max_model_len']))) else 'the engine starts and may lower max_seq_len to what the cache holds')),
    ('1', frozenset(())):
        lambda names, functions, params, _expression='1': 1,
    ('draft.kv_bytes_per_token', frozenset(())):
        lambda names, functions, params, _expression='draft.kv_bytes_per_token': names['draft.kv_bytes_per_token'],
    ('draft.kv_bytes_per_token > 0 and not draft.kv_fp8 and whatif(draft_kv_cache_dtype="fp8").kv.tokens > kv.tokens', frozenset(())):
        lambda names, functions, params, _expression='draft.kv_bytes_per_token > 0 and not draft.kv_fp8 and whatif(draft_kv_cache_dtype="fp8").kv.tokens > kv.tokens': ((_v1._magnitude > 0 if type(_v1 := names['draft.kv_bytes_per_token']) is _Quantity and _v1._units._dimensions else _v1 > 0) and (not names['draft.kv_fp8']) and (_attribute(_attribute(_function(functions, 'whatif', True)(**{'draft_kv_cache_dtype': 'fp8'}), 'kv', _expression), 'tokens', _expression) > names['kv.tokens'])),
    ('draft.max_length_sglang', frozenset(())):
        lambda names, functions, params, _expression='draft.max_length_sglang': names['draft.max_length_sglang'],
    ('draft.max_model_len', frozenset(())):
        lambda names, functions, params, _expression='draft.max_model_len': names['draft.max_model_len'],
    ('draft.name', frozenset(())):
        lambda names, functions, params, _expression='draft.name': names['draft.name'],
    ('draft.parameter_ratio', frozenset(())):
        lambda names, functions, params, _expression='draft.parameter_ratio': names['draft.parameter_ratio'],
    ('draft.present', frozenset(())):
        lambda names, functions, params, _expression='draft.present': names['draft.present'],
    ('draft.present and draft.in_fraction and draft.quantization == "none" and whatif(draft_quantization="fp8").weights.total <= gpu.usable', frozenset(())):
        lambda names, functions, params, _expression='draft.present and draft.in_fraction and draft.quantization == "none" and whatif(draft_quantization="fp8").weights.total <= gpu.usable': (names['draft.present'] and names['draft.in_fraction'] and (names['draft.quantization'] == 'none') and (_attribute(_attribute(_function(functions, 'whatif', True)(**{'draft_quantization': 'fp8'}), 'weights', _expression), 'total', _expression) <= names['gpu.usable'])),
    ('draft.present and draft.in_fraction and draft.quantization == "none" and whatif(draft_quantization="fp8").weights.total > gpu.usable', frozenset(())):
        lambda names, functions, params, _expression='draft.present and draft.in_fraction and draft.quantization == "none" and whatif(draft_quantization="fp8").weights.total > gpu.usable': (names['draft.present'] and names['draft.in_fraction'] and (names['draft.quantization'] == 'none') and (_attribute(_attribute(_function(functions, 'whatif', True)(**{'draft_quantization': 'fp8'}), 'weights', _expression), 'total', _expression) > names['gpu.usable'])),
    ('draft.present and draft.in_fraction and whatif(speculative_method="ngram").weights.total <= gpu.usable', frozenset(())):
        lambda names, functions, params, _expression='draft.present and draft.in_fraction and whatif(speculative_method="ngram").weights.total <= gpu.usable': (names['draft.present'] and names['draft.in_fraction'] and (_attribute(_attribute(_function(functions, 'whatif', True)(**{'speculative_method': 'ngram'}), 'weights', _expression), 'total', _expression) <= names['gpu.usable'])),
    ('draft.present and draft.quantization == "none"', frozenset(())):
        lambda names, functions, params, _expression='draft.present and draft.quantization == "none"': (names['draft.present'] and (names['draft.quantization'] == 'none')),
    ('draft.present and draft.quantization == "none" and whatif(draft_quantization="fp8").kv.tokens >= serving.max_model_len', frozenset(())):
        lambda names, functions, params, _expression='draft.present and draft.quantization == "none" and whatif(draft_quantization="fp8").kv.tokens >= serving.max_model_len': (names['draft.present'] and (names['draft.quantization'] == 'none') and (_attribute(_attribute(_function(functions, 'whatif', True)(**{'draft_quantization': 'fp8'}), 'kv', _expression), 'tokens', _expression) >= names['serving.max_model_len'])),
    ('draft.present and draft.quantization == "none" and whatif(draft_quantization="fp8").kv.tokens_low >= serving.max_model_len', frozenset(())):
        lambda names, functions, params, _expression='draft.present and draft.quantization == "none" and whatif(draft_quantization="fp8").kv.tokens_low >= serving.max_model_len': (names['draft.present'] and (names['draft.quantization'] == 'none') and (_attribute(_attribute(_function(functions, 'whatif', True)(**{'draft_quantization': 'fp8'}), 'kv', _expression), 'tokens_low', _expression) >= names['serving.max_model_len'])),
    ('draft.present and not draft.in_fraction', frozenset(())):
        lambda names, functions, params, _expression='draft.present and not draft.in_fraction': (names['draft.present'] and (not names['draft.in_fraction'])),
    ('draft.present and whatif(speculative_method="ngram").kv.tokens >= serving.max_model_len', frozenset(())):
        lambda names, functions, params, _expression='draft.present and whatif(speculative_method="ngram").kv.tokens >= serving.max_model_len': (names['draft.present'] and (_attribute(_attribute(_function(functions, 'whatif', True)(**{'speculative_method': 'ngram'}), 'kv', _expression), 'tokens', _expression) >= names['serving.max_model_len'])),
    ('draft.present and whatif(speculative_method="ngram").kv.tokens_low >= serving.max_model_len', frozenset(())):
        lambda names, functions, params, _expression='draft.present and whatif(speculative_method="ngram").kv.tokens_low >= serving.max_model_len': (names['draft.present'] and (_attribute(_attribute(_function(functions, 'whatif', True)(**{'speculative_method': 'ngram'}), 'kv', _expression), 'tokens_low', _expression) >= names['serving.max_model_len'])),
    ('draft.quantization == "none" and whatif(draft_quantization="fp8").weights.total <= gpu.usable', frozenset(())):
        lambda names, functions, params, _expression='draft.quantization == "none" and whatif(draft_quantization="fp8").weights.total <= gpu.usable': ((names['draft.quantization'] == 'none') and (_attribute(_attribute(_function(functions, 'whatif', True)(**{'draft_quantization': 'fp8'}), 'weights', _expression), 'total', _expression) <= names['gpu.usable'])),
    ('draft.quantization == "none" and whatif(draft_quantization="fp8").weights.total > gpu.usable', frozenset(())):
        lambda names, functions, params, _expression='draft.quantization == "none" and whatif(draft_quantization="fp8").weights.total > gpu.usable': ((names['draft.quantization'] == 'none') and (_attribute(_attribute(_function(functions, 'whatif', True)(**{'draft_quantization': 'fp8'}), 'weights', _expression), 'total', _expression) > names['gpu.usable'])),
    ('draft.separate_model and draft.quantization == "none" and whatif(draft_quantization="fp8").kv.tokens > kv.tokens', frozenset(())):
        lambda names, functions, params, _expression='draft.separate_model and draft.quantization == "none" and whatif(draft_quantization="fp8").kv.tokens > kv.tokens': (names['draft.separate_model'] and (names['draft.quantization'] == 'none') and (_attribute(_attribute(_function(functions, 'whatif', True)(**{'draft_quantization': 'fp8'}), 'kv', _expression), 'tokens', _expression) > names['kv.tokens'])),
    ('draft.tensor_parallel', frozenset(())):
        lambda names, functions, params, _expression='draft.tensor_parallel': names['draft.tensor_parallel'],
    ('draft.vocab_size', frozenset(())):
        lambda names, functions, params, _expression='draft.vocab_size': names['draft.vocab_size'],
    ('draft.weights', frozenset(())):
        lambda names, functions, params, _expression='draft.weights': names['draft.weights'],
    ('draft.weights - whatif(draft_quantization="fp8").draft.weights', frozenset(())):
        lambda names, functions, params, _expression='draft.weights - whatif(draft_quantization="fp8").draft.weights': (names['draft.weights'] - _attribute(_attribute(_function(functions, 'whatif', True)(**{'draft_quantization': 'fp8'}), 'draft', _expression), 'weights', _expression)),
    ('draft.weights / gpu.usable', frozenset(())):
        lambda names, functions, params, _expression='draft.weights / gpu.usable': (names['draft.weights'] / names['gpu.usable']),
    ('floor(kv.state_blocks_low * block_spread)', frozenset(('block_spread',))):
        lambda names, functions, params, _expression='floor(kv.state_blocks_low * block_spread)', _f1=OWN_OPERATORS[ast.Mult]: _function(functions, 'floor', False)(_f1(names['kv.state_blocks_low'], params['block_spread'])),
    ('floor(speculative.num_speculative_tokens / speculative.n_predict) * speculative.n_predict', frozenset(())):
        lambda names, functions, params, _expression='floor(speculative.num_speculative_tokens / speculative.n_predict) * speculative.n_predict', _f1=OWN_OPERATORS[ast.Mult]: _f1(_function(functions, 'floor', False)((names['speculative.num_speculative_tokens'] / names['speculative.n_predict'])), names['speculative.n_predict']),
    ('gpu.compute_capability', frozenset(())):
        lambda names, functions, params, _expression='gpu.compute_capability': names['gpu.compute_capability'],
    ('gpu.memory_fraction', frozenset(())):
        lambda names, functions, params, _expression='gpu.memory_fraction': names['gpu.memory_fraction'],
    ('gpu.name', frozenset(())):
        lambda names, functions, params, _expression='gpu.name': names['gpu.name'],
    ('gpu.total', frozenset(())):
        lambda names, functions, params, _expression='gpu.total': names['gpu.total'],
    ('gpu.total - weights.total - overhead.total', frozenset(())):
        lambda names, functions, params, _expression='gpu.total - weights.total - overhead.total', _s1=_name_attribute('overhead', 'total', 'gpu.total - weights.total - overhead.total'): ((names['gpu.total'] - names['weights.total']) - _s1(names, functions, params)),
    ('gpu.total - weights.total - serving.kv_cache_memory_bytes', frozenset(())):
        lambda names, functions, params, _expression='gpu.total - weights.total - serving.kv_cache_memory_bytes': ((names['gpu.total'] - names['weights.total']) - names['serving.kv_cache_memory_bytes']),
    ('gpu.total > weights.total + overhead.total', frozenset(())):
        lambda names, functions, params, _expression='gpu.total > weights.total + overhead.total', _f2=OWN_OPERATORS[ast.Add], _s1=_name_attribute('overhead', 'total', 'gpu.total > weights.total + overhead.total'): (names['gpu.total'] > _f2(names['weights.total'], _s1(names, functions, params))),
    ('gpu.usable', frozenset(())):
        lambda names, functions, params, _expression='gpu.usable': names['gpu.usable'],
    ('gpu.usable <= 0', frozenset(())):
        lambda names, functions, params, _expression='gpu.usable <= 0': (_v1._magnitude <= 0 if type(_v1 := names['gpu.usable']) is _Quantity and _v1._units._dimensions else _v1 <= 0),
    ('gpu.usable <= 0 and draft.present', frozenset(())):
        lambda names, functions, params, _expression='gpu.usable <= 0 and draft.present': ((_v1._magnitude <= 0 if type(_v1 := names['gpu.usable']) is _Quantity and _v1._units._dimensions else _v1 <= 0) and names['draft.present']),
    ('gpu.usable_share', frozenset(())):
        lambda names, functions, params, _expression='gpu.usable_share': names['gpu.usable_share'],
    ('kv.bytes', frozenset(())):
        lambda names, functions, params, _expression='kv.bytes': names['kv.bytes'],
    ('kv.bytes < 0', frozenset(())):
        lambda names, functions, params, _expression='kv.bytes < 0': (_v1._magnitude < 0 if type(_v1 := names['kv.bytes']) is _Quantity and _v1._units._dimensions else _v1 < 0),
    ('kv.bytes < 0 and kv.trtllm_state_cache > 0', frozenset(())):
        lambda names, functions, params, _expression='kv.bytes < 0 and kv.trtllm_state_cache > 0': ((_v1._magnitude < 0 if type(_v1 := names['kv.bytes']) is _Quantity and _v1._units._dimensions else _v1 < 0) and (_v2._magnitude > 0 if type(_v2 := names['kv.trtllm_state_cache']) is _Quantity and _v2._units._dimensions else _v2 > 0)),
    ('kv.bytes < 0 and overhead.warmup_attention > 0', frozenset(())):
        lambda names, functions, params, _expression='kv.bytes < 0 and overhead.warmup_attention > 0', _s2=_name_attribute('overhead', 'warmup_attention', 'kv.bytes < 0 and overhead.warmup_attention > 0'): ((_v1._magnitude < 0 if type(_v1 := names['kv.bytes']) is _Quantity and _v1._units._dimensions else _v1 < 0) and (_v3._magnitude > 0 if type(_v3 := _s2(names, functions, params)) is _Quantity and _v3._units._dimensions else _v3 > 0)),
    ('kv.bytes_per_token', frozenset(())):
        lambda names, functions, params, _expression='kv.bytes_per_token': names['kv.bytes_per_token'],
    ('kv.max_model_len_fit', frozenset(())):
        lambda names, functions, params, _expression='kv.max_model_len_fit': names['kv.max_model_len_fit'],
    ('kv.sequences_displaced_by_draft', frozenset(())):
        lambda names, functions, params, _expression='kv.sequences_displaced_by_draft': names['kv.sequences_displaced_by_draft'],
    ('kv.shortfall', frozenset(())):
        lambda names, functions, params, _expression='kv.shortfall': names['kv.shortfall'],
    ('kv.state_blocks', frozenset(())):
        lambda names, functions, params, _expression='kv.state_blocks': names['kv.state_blocks'],
    ('kv.state_blocks_high', frozenset(())):
        lambda names, functions, params, _expression='kv.state_blocks_high': names['kv.state_blocks_high'],
    ('kv.state_blocks_low', frozenset(())):
        lambda names, functions, params, _expression='kv.state_blocks_low': names['kv.state_blocks_low'],
    ('kv.state_blocks_low > 0', frozenset(())):
        lambda names, functions, params, _expression='kv.state_blocks_low > 0': (_v1._magnitude > 0 if type(_v1 := names['kv.state_blocks_low']) is _Quantity and _v1._units._dimensions else _v1 > 0),
    ('kv.tokens', frozenset(())):
        lambda names, functions, params, _expression='kv.tokens': names['kv.tokens'],
    ('kv.tokens > 0', frozenset(())):
        lambda names, functions, params, _expression='kv.tokens > 0': (_v1._magnitude > 0 if type(_v1 := names['kv.tokens']) is _Quantity and _v1._units._dimensions else _v1 > 0),
    ('kv.tokens_displaced_by_draft', frozenset(())):
        lambda names, functions, params, _expression='kv.tokens_displaced_by_draft': names['kv.tokens_displaced_by_draft'],
    ('kv.tokens_displaced_by_draft / (kv.tokens + kv.tokens_displaced_by_draft)', frozenset(())):
        lambda names, functions, params, _expression='kv.tokens_displaced_by_draft / (kv.tokens + kv.tokens_displaced_by_draft)', _f1=OWN_OPERATORS[ast.Add]: (names['kv.tokens_displaced_by_draft'] / _f1(names['kv.tokens'], names['kv.tokens_displaced_by_draft'])),
    ('kv.tokens_displaced_by_state_slots', frozenset(())):
        lambda names, functions, params, _expression='kv.tokens_displaced_by_state_slots': names['kv.tokens_displaced_by_state_slots'],
    ('kv.tokens_displaced_by_state_slots / kv.tokens_without_draft', frozenset(())):
        lambda names, functions, params, _expression='kv.tokens_displaced_by_state_slots / kv.tokens_without_draft': (names['kv.tokens_displaced_by_state_slots'] / names['kv.tokens_without_draft']),
    ('kv.tokens_high', frozenset(())):
        lambda names, functions, params, _expression='kv.tokens_high': names['kv.tokens_high'],
    ('kv.tokens_low', frozenset(())):
        lambda names, functions, params, _expression='kv.tokens_low': names['kv.tokens_low'],
    ('kv.tokens_low <= 0', frozenset(())):
        lambda names, functions, params, _expression='kv.tokens_low <= 0': (_v1._magnitude <= 0 if type(_v1 := names['kv.tokens_low']) is _Quantity and _v1._units._dimensions else _v1 <= 0),
    ('kv.tokens_low <= 0 and not (serving.engine == "tgi" and kv.bytes > 0) and overhead.warmup_attention == 0', frozenset(())):
        lambda names, functions, params, _expression='kv.tokens_low <= 0 and not (serving.engine == "tgi" and kv.bytes > 0) and overhead.warmup_attention == 0', _s3=_name_attribute('overhead', 'warmup_attention', 'kv.tokens_low <= 0 and not (serving.engine == "tgi" and kv.bytes > 0) and overhead.warmup_attention == 0'): ((_v1._magnitude <= 0 if type(_v1 := names['kv.tokens_low']) is _Quantity and _v1._units._dimensions else _v1 <= 0) and (not ((names['serving.engine'] == 'tgi') and (_v2._magnitude > 0 if type(_v2 := names['kv.bytes']) is _Quantity and _v2._units._dimensions else _v2 > 0))) and (_s3(names, functions, params) == 0)),
    ('kv.tokens_low <= 0 and overhead.warmup_attention == 0', frozenset(())):
        lambda names, functions, params, _expression='kv.tokens_low <= 0 and overhead.warmup_attention == 0', _s2=_name_attribute('overhead', 'warmup_attention', 'kv.tokens_low <= 0 and overhead.warmup_attention == 0'): ((_v1._magnitude <= 0 if type(_v1 := names['kv.tokens_low']) is _Quantity and _v1._units._dimensions else _v1 <= 0) and (_s2(names, functions, params) == 0)),
    ('kv.tokens_low <= 0 and serving.engine == "tgi" and kv.bytes > 0 and overhead.warmup_attention == 0', frozenset(())):
        lambda names, functions, params, _expression='kv.tokens_low <= 0 and serving.engine == "tgi" and kv.bytes > 0 and overhead.warmup_attention == 0', _s3=_name_attribute('overhead', 'warmup_attention', 'kv.tokens_low <= 0 and serving.engine == "tgi" and kv.bytes > 0 and overhead.warmup_attention == 0'): ((_v1._magnitude <= 0 if type(_v1 := names['kv.tokens_low']) is _Quantity and _v1._units._dimensions else _v1 <= 0) and (names['serving.engine'] == 'tgi') and (_v2._magnitude > 0 if type(_v2 := names['kv.bytes']) is _Quantity and _v2._units._dimensions else _v2 > 0) and (_s3(names, functions, params) == 0)),
    ('kv.tokens_low > 0', frozenset(())):
        lambda names, functions, params, _expression='kv.tokens_low > 0': (_v1._magnitude > 0 if type(_v1 := names['kv.tokens_low']) is _Quantity and _v1._units._dimensions else _v1 > 0),
    ('kv.tokens_without_draft', frozenset(())):
        lambda names, functions, params, _expression='kv.tokens_without_draft': names['kv.tokens_without_draft'],
    ('kv.trtllm_state_cache', frozenset(())):
        lambda names, functions, params, _expression='kv.trtllm_state_cache': names['kv.trtllm_state_cache'],
    ('kv.trtllm_state_slots_half_fit', frozenset(())):
        lambda names, functions, params, _expression='kv.trtllm_state_slots_half_fit': names['kv.trtllm_state_slots_half_fit'],
    ('kv.trtllm_state_slots_half_fit >= 1', frozenset(())):
        lambda names, functions, params, _expression='kv.trtllm_state_slots_half_fit >= 1': (names['kv.trtllm_state_slots_half_fit'] >= 1),
    ('max_ratio', frozenset(('max_ratio',))):
        lambda names, functions, params, _expression='max_ratio': params['max_ratio'],
    ('max_share', frozenset(('max_share',))):
        lambda names, functions, params, _expression='max_share': params['max_share'],
    ('min(workload.concurrency_fit_without_draft, workload.concurrency)', frozenset(())):
        lambda names, functions, params, _expression='min(workload.concurrency_fit_without_draft, workload.concurrency)', _s1=_name_attribute('workload', 'concurrency_fit_without_draft', 'min(workload.concurrency_fit_without_draft, workload.concurrency)'), _s2=_name_attribute('workload', 'concurrency', 'min(workload.concurrency_fit_without_draft, workload.concurrency)'): _function(functions, 'min', False)(_s1(names, functions, params), _s2(names, functions, params)),
    ('model.attention_heads', frozenset(())):
        lambda names, functions, params, _expression='model.attention_heads': names['model.attention_heads'],
    ('model.block_misfit', frozenset(())):
        lambda names, functions, params, _expression='model.block_misfit': names['model.block_misfit'],
    ('model.block_misfit_what', frozenset(())):
        lambda names, functions, params, _expression='model.block_misfit_what': names['model.block_misfit_what'],
    ('model.checkpoint_quantization', frozenset(())):
        lambda names, functions, params, _expression='model.checkpoint_quantization': names['model.checkpoint_quantization'],
    ('model.checkpoint_unquantized', frozenset(())):
        lambda names, functions, params, _expression='model.checkpoint_unquantized': names['model.checkpoint_unquantized'],
    ('model.experts > 0 and not parallel.expert', frozenset(())):
        lambda names, functions, params, _expression='model.experts > 0 and not parallel.expert': ((_v1._magnitude > 0 if type(_v1 := names['model.experts']) is _Quantity and _v1._units._dimensions else _v1 > 0) and (not names['parallel.expert'])),
    ('model.kv_heads', frozenset(())):
        lambda names, functions, params, _expression='model.kv_heads': names['model.kv_heads'],
    ('model.max_length', frozenset(())):
        lambda names, functions, params, _expression='model.max_length': names['model.max_length'],
    ('model.max_length_sglang', frozenset(())):
        lambda names, functions, params, _expression='model.max_length_sglang': names['model.max_length_sglang'],
    ('model.model_type', frozenset(())):
        lambda names, functions, params, _expression='model.model_type': names['model.model_type'],
    ('model.name', frozenset(())):
        lambda names, functions, params, _expression='model.name': names['model.name'],
    ('model.quantization', frozenset(())):
        lambda names, functions, params, _expression='model.quantization': names['model.quantization'],
    ('model.quantization == "none" and gpu.fp8 and whatif(quantization="fp8").weights.in_fraction <= gpu.usable', frozenset(())):
        lambda names, functions, params, _expression='model.quantization == "none" and gpu.fp8 and whatif(quantization="fp8").weights.in_fraction <= gpu.usable': ((names['model.quantization'] == 'none') and names['gpu.fp8'] and (_attribute(_attribute(_function(functions, 'whatif', True)(**{'quantization': 'fp8'}), 'weights', _expression), 'in_fraction', _expression) <= names['gpu.usable'])),
    ('model.quantization_method', frozenset(())):
        lambda names, functions, params, _expression='model.quantization_method': names['model.quantization_method'],
    ('model.quantization_method != "exl2"', frozenset(())):
        lambda names, functions, params, _expression='model.quantization_method != "exl2"': (names['model.quantization_method'] != 'exl2'),
    ('model.quantization_method == "exl2"', frozenset(())):
        lambda names, functions, params, _expression='model.quantization_method == "exl2"': (names['model.quantization_method'] == 'exl2'),
    ('model.vocab_size', frozenset(())):
        lambda names, functions, params, _expression='model.vocab_size': names['model.vocab_size'],
    ('model.weight_block', frozenset(())):
        lambda names, functions, params, _expression='model.weight_block': names['model.weight_block'],
    ('model.weights', frozenset(())):
        lambda names, functions, params, _expression='model.weights': names['model.weights'],
    ('not kv.fp8', frozenset(())):
        lambda names, functions, params, _expression='not kv.fp8': (not names['kv.fp8']),
    ('not kv.fp8 and kv.bytes > 0', frozenset(())):
        lambda names, functions, params, _expression='not kv.fp8 and kv.bytes > 0': ((not names['kv.fp8']) and (_v1._magnitude > 0 if type(_v1 := names['kv.bytes']) is _Quantity and _v1._units._dimensions else _v1 > 0)),
    ('not kv.fp8 and kv.bytes > 0 and whatif(kv_cache_dtype="fp8").kv.tokens < serving.max_model_len', frozenset(())):
        lambda names, functions, params, _expression='not kv.fp8 and kv.bytes > 0 and whatif(kv_cache_dtype="fp8").kv.tokens < serving.max_model_len': ((not names['kv.fp8']) and (_v1._magnitude > 0 if type(_v1 := names['kv.bytes']) is _Quantity and _v1._units._dimensions else _v1 > 0) and (_attribute(_attribute(_function(functions, 'whatif', True)(**{'kv_cache_dtype': 'fp8'}), 'kv', _expression), 'tokens', _expression) < names['serving.max_model_len'])),
    ('not kv.fp8 and whatif(kv_cache_dtype="fp8").kv.tokens >= serving.max_model_len', frozenset(())):
        lambda names, functions, params, _expression='not kv.fp8 and whatif(kv_cache_dtype="fp8").kv.tokens >= serving.max_model_len': ((not names['kv.fp8']) and (_attribute(_attribute(_function(functions, 'whatif', True)(**{'kv_cache_dtype': 'fp8'}), 'kv', _expression), 'tokens', _expression) >= names['serving.max_model_len'])),
    ('not kv.fp8 and whatif(kv_cache_dtype="fp8").kv.tokens_low >= serving.max_model_len', frozenset(())):
        lambda names, functions, params, _expression='not kv.fp8 and whatif(kv_cache_dtype="fp8").kv.tokens_low >= serving.max_model_len': ((not names['kv.fp8']) and (_attribute(_attribute(_function(functions, 'whatif', True)(**{'kv_cache_dtype': 'fp8'}), 'kv', _expression), 'tokens_low', _expression) >= names['serving.max_model_len'])),
    ('not model.checkpoint_unquantized', frozenset(())):
        lambda names, functions, params, _expression='not model.checkpoint_unquantized': (not names['model.checkpoint_unquantized']),
    ('not parallel.tensor_to_fit', frozenset(())):
        lambda names, functions, params, _expression='not parallel.tensor_to_fit': (not names['parallel.tensor_to_fit']),
    ('not serving.max_num_seqs_set', frozenset(())):
        lambda names, functions, params, _expression='not serving.max_num_seqs_set': (not names['serving.max_num_seqs_set']),
    ('not tradeoff().current_starts', frozenset(())):
        lambda names, functions, params, _expression='not tradeoff().current_starts': (not _attribute(_function(functions, 'tradeoff', False)(), 'current_starts', _expression)),
    ('overhead.total', frozenset(())):
        lambda names, functions, params, _expression='overhead.total', _s1=_name_attribute('overhead', 'total', 'overhead.total'): _s1(names, functions, params),
    ('overhead.warmup_attention', frozenset(())):
        lambda names, functions, params, _expression='overhead.warmup_attention', _s1=_name_attribute('overhead', 'warmup_attention', 'overhead.warmup_attention'): _s1(names, functions, params),
    ('overhead.warmup_attention > 0', frozenset(())):
        lambda names, functions, params, _expression='overhead.warmup_attention > 0', _s1=_name_attribute('overhead', 'warmup_attention', 'overhead.warmup_attention > 0'): (_v2._magnitude > 0 if type(_v2 := _s1(names, functions, params)) is _Quantity and _v2._units._dimensions else _v2 > 0),
    ('overhead.warmup_attention > 0 and not engine_at_least("3.3")', frozenset(())):
        lambda names, functions, params, _expression='overhead.warmup_attention > 0 and not engine_at_least("3.3")', _s1=_name_attribute('overhead', 'warmup_attention', 'overhead.warmup_attention > 0 and not engine_at_least("3.3")'): ((_v2._magnitude > 0 if type(_v2 := _s1(names, functions, params)) is _Quantity and _v2._units._dimensions else _v2 > 0) and (not _function(functions, 'engine_at_least', False)('3.3'))),
    ('parallel.block_tensor', frozenset(())):
        lambda names, functions, params, _expression='parallel.block_tensor': names['parallel.block_tensor'],
    ('parallel.block_tensor > 1', frozenset(())):
        lambda names, functions, params, _expression='parallel.block_tensor > 1': (names['parallel.block_tensor'] > 1),
    ('parallel.next_tensor', frozenset(())):
        lambda names, functions, params, _expression='parallel.next_tensor': names['parallel.next_tensor'],
    ('parallel.tensor', frozenset(())):
        lambda names, functions, params, _expression='parallel.tensor': names['parallel.tensor'],
    ('parallel.tensor_to_fit', frozenset(())):
        lambda names, functions, params, _expression='parallel.tensor_to_fit': names['parallel.tensor_to_fit'],
    ('parallel.tensor_to_fit * parallel.pipeline', frozenset(())):
        lambda names, functions, params, _expression='parallel.tensor_to_fit * parallel.pipeline', _f1=OWN_OPERATORS[ast.Mult]: _f1(names['parallel.tensor_to_fit'], names['parallel.pipeline']),
    ('serving.block_size', frozenset(())):
        lambda names, functions, params, _expression='serving.block_size': names['serving.block_size'],
    ('serving.engine != "vllm" or abs(draft.vocab_size - model.vocab_size) > vocab_tolerance', frozenset(('vocab_tolerance',))):
        lambda names, functions, params, _expression='serving.engine != "vllm" or abs(draft.vocab_size - model.vocab_size) > vocab_tolerance': ((names['serving.engine'] != 'vllm') or (_function(functions, 'abs', False)((names['draft.vocab_size'] - names['model.vocab_size'])) > params['vocab_tolerance'])),
    ('serving.engine == "tgi" and kv.tokens_low <= 0', frozenset(())):
        lambda names, functions, params, _expression='serving.engine == "tgi" and kv.tokens_low <= 0': ((names['serving.engine'] == 'tgi') and (_v1._magnitude <= 0 if type(_v1 := names['kv.tokens_low']) is _Quantity and _v1._units._dimensions else _v1 <= 0)),
    ('serving.engine == "vllm" and abs(draft.vocab_size - model.vocab_size) <= vocab_tolerance', frozenset(('vocab_tolerance',))):
        lambda names, functions, params, _expression='serving.engine == "vllm" and abs(draft.vocab_size - model.vocab_size) <= vocab_tolerance': ((names['serving.engine'] == 'vllm') and (_function(functions, 'abs', False)((names['draft.vocab_size'] - names['model.vocab_size'])) <= params['vocab_tolerance'])),
    ('serving.extensible_kv_cache', frozenset(())):
        lambda names, functions, params, _expression='serving.extensible_kv_cache': names['serving.extensible_kv_cache'],
    ('serving.extensible_kv_cache and not serving.gpu_memory_utilization_set', frozenset(())):
        lambda names, functions, params, _expression='serving.extensible_kv_cache and not serving.gpu_memory_utilization_set': (names['serving.extensible_kv_cache'] and (not names['serving.gpu_memory_utilization_set'])),
    ('serving.kv_cache_max_tokens', frozenset(())):
        lambda names, functions, params, _expression='serving.kv_cache_max_tokens': names['serving.kv_cache_max_tokens'],
    ('serving.kv_cache_memory_bytes', frozenset(())):
        lambda names, functions, params, _expression='serving.kv_cache_memory_bytes': names['serving.kv_cache_memory_bytes'],
    ('serving.max_input_tokens', frozenset(())):
        lambda names, functions, params, _expression='serving.max_input_tokens': names['serving.max_input_tokens'],
    ('serving.max_input_tokens', frozenset(('token',))):
        lambda names, functions, params, _expression='serving.max_input_tokens': names['serving.max_input_tokens'],
    ('serving.max_model_len', frozenset(())):
        lambda names, functions, params, _expression='serving.max_model_len': names['serving.max_model_len'],
    ('serving.max_model_len / token', frozenset(('token',))):
        lambda names, functions, params, _expression='serving.max_model_len / token': (names['serving.max_model_len'] / params['token']),
    ('serving.max_num_batched_tokens', frozenset(())):
        lambda names, functions, params, _expression='serving.max_num_batched_tokens': names['serving.max_num_batched_tokens'],
    ('serving.max_num_batched_tokens', frozenset(('token',))):
        lambda names, functions, params, _expression='serving.max_num_batched_tokens': names['serving.max_num_batched_tokens'],
    ('serving.max_num_seqs', frozenset(())):
        lambda names, functions, params, _expression='serving.max_num_seqs': names['serving.max_num_seqs'],
    ('speculative.method', frozenset(())):
        lambda names, functions, params, _expression='speculative.method': names['speculative.method'],
    ('speculative.method == "mtp"', frozenset(())):
        lambda names, functions, params, _expression='speculative.method == "mtp"': (names['speculative.method'] == 'mtp'),
    ('speculative.n_predict', frozenset(())):
        lambda names, functions, params, _expression='speculative.n_predict': names['speculative.n_predict'],
    ('speculative.num_speculative_tokens', frozenset(())):
        lambda names, functions, params, _expression='speculative.num_speculative_tokens': names['speculative.num_speculative_tokens'],
    ('speculative.num_speculative_tokens > 1', frozenset(())):
        lambda names, functions, params, _expression='speculative.num_speculative_tokens > 1': (names['speculative.num_speculative_tokens'] > 1),
    ('tradeoff().best.bound', frozenset(())):
        lambda names, functions, params, _expression='tradeoff().best.bound': _attribute(_attribute(_function(functions, 'tradeoff', False)(), 'best', _expression), 'bound', _expression),
    ('tradeoff().best.change', frozenset(())):
        lambda names, functions, params, _expression='tradeoff().best.change': _attribute(_attribute(_function(functions, 'tradeoff', False)(), 'best', _expression), 'change', _expression),
    ('tradeoff().best.kv_tokens', frozenset(())):
        lambda names, functions, params, _expression='tradeoff().best.kv_tokens': _attribute(_attribute(_function(functions, 'tradeoff', False)(), 'best', _expression), 'kv_tokens', _expression),
    ('tradeoff().best.label', frozenset(())):
        lambda names, functions, params, _expression='tradeoff().best.label': _attribute(_attribute(_function(functions, 'tradeoff', False)(), 'best', _expression), 'label', _expression),
    ('tradeoff().best.served', frozenset(())):
        lambda names, functions, params, _expression='tradeoff().best.served': _attribute(_attribute(_function(functions, 'tradeoff', False)(), 'best', _expression), 'served', _expression),
    ('tradeoff().best.speedup', frozenset(())):
        lambda names, functions, params, _expression='tradeoff().best.speedup': _attribute(_attribute(_function(functions, 'tradeoff', False)(), 'best', _expression), 'speedup', _expression),
    ('tradeoff().best.tokens_per_step', frozenset(())):
        lambda names, functions, params, _expression='tradeoff().best.tokens_per_step': _attribute(_attribute(_function(functions, 'tradeoff', False)(), 'best', _expression), 'tokens_per_step', _expression),
    ('tradeoff().changes', frozenset(())):
        lambda names, functions, params, _expression='tradeoff().changes': _attribute(_function(functions, 'tradeoff', False)(), 'changes', _expression),
    ('tradeoff().context', frozenset(())):
        lambda names, functions, params, _expression='tradeoff().context': _attribute(_function(functions, 'tradeoff', False)(), 'context', _expression),
    ('tradeoff().current.bound', frozenset(())):
        lambda names, functions, params, _expression='tradeoff().current.bound': _attribute(_attribute(_function(functions, 'tradeoff', False)(), 'current', _expression), 'bound', _expression),
    ('tradeoff().current.label', frozenset(())):
        lambda names, functions, params, _expression='tradeoff().current.label': _attribute(_attribute(_function(functions, 'tradeoff', False)(), 'current', _expression), 'label', _expression),
    ('tradeoff().current.served', frozenset(())):
        lambda names, functions, params, _expression='tradeoff().current.served': _attribute(_attribute(_function(functions, 'tradeoff', False)(), 'current', _expression), 'served', _expression),
    ('tradeoff().current.shortfall', frozenset(())):
        lambda names, functions, params, _expression='tradeoff().current.shortfall': _attribute(_attribute(_function(functions, 'tradeoff', False)(), 'current', _expression), 'shortfall', _expression),
    ('tradeoff().current.speedup', frozenset(())):
        lambda names, functions, params, _expression='tradeoff().current.speedup': _attribute(_attribute(_function(functions, 'tradeoff', False)(), 'current', _expression), 'speedup', _expression),
    ('tradeoff().current.tokens_per_step', frozenset(())):
        lambda names, functions, params, _expression='tradeoff().current.tokens_per_step': _attribute(_attribute(_function(functions, 'tradeoff', False)(), 'current', _expression), 'tokens_per_step', _expression),
    ('tradeoff().current_starts', frozenset(())):
        lambda names, functions, params, _expression='tradeoff().current_starts': _attribute(_function(functions, 'tradeoff', False)(), 'current_starts', _expression),
    ('tradeoff().gain', frozenset(())):
        lambda names, functions, params, _expression='tradeoff().gain': _attribute(_function(functions, 'tradeoff', False)(), 'gain', _expression),
    ('tradeoff().summary', frozenset(())):
        lambda names, functions, params, _expression='tradeoff().summary': _attribute(_function(functions, 'tradeoff', False)(), 'summary', _expression),
    ('weights.in_fraction - gpu.usable', frozenset(())):
        lambda names, functions, params, _expression='weights.in_fraction - gpu.usable': (names['weights.in_fraction'] - names['gpu.usable']),
    ('weights.total', frozenset(())):
        lambda names, functions, params, _expression='weights.total': names['weights.total'],
    ('weights.total + serving.kv_cache_memory_bytes', frozenset(())):
        lambda names, functions, params, _expression='weights.total + serving.kv_cache_memory_bytes', _f1=OWN_OPERATORS[ast.Add]: _f1(names['weights.total'], names['serving.kv_cache_memory_bytes']),
    ('weights.total - gpu.usable', frozenset(())):
        lambda names, functions, params, _expression='weights.total - gpu.usable': (names['weights.total'] - names['gpu.usable']),
    ('weights.total < 1.05 * gpu.usable and 0.95 * weights.total + overhead.total > gpu.usable', frozenset(())):
        lambda names, functions, params, _expression='weights.total < 1.05 * gpu.usable and 0.95 * weights.total + overhead.total > gpu.usable', _f1=OWN_OPERATORS[ast.Mult], _f2=OWN_OPERATORS[ast.Mult], _f4=OWN_OPERATORS[ast.Add], _s3=_name_attribute('overhead', 'total', 'weights.total < 1.05 * gpu.usable and 0.95 * weights.total + overhead.total > gpu.usable'): ((names['weights.total'] < _f1(1.05, names['gpu.usable'])) and (_f4(_f2(0.95, names['weights.total']), _s3(names, functions, params)) > names['gpu.usable'])),
    ('whatif(draft_kv_cache_dtype="fp8").kv.tokens', frozenset(())):
        lambda names, functions, params, _expression='whatif(draft_kv_cache_dtype="fp8").kv.tokens': _attribute(_attribute(_function(functions, 'whatif', True)(**{'draft_kv_cache_dtype': 'fp8'}), 'kv', _expression), 'tokens', _expression),
    ('whatif(draft_quantization="fp8").kv.tokens', frozenset(())):
        lambda names, functions, params, _expression='whatif(draft_quantization="fp8").kv.tokens': _attribute(_attribute(_function(functions, 'whatif', True)(**{'draft_quantization': 'fp8'}), 'kv', _expression), 'tokens', _expression),
    ('whatif(draft_quantization="fp8").weights.total', frozenset(())):
        lambda names, functions, params, _expression='whatif(draft_quantization="fp8").weights.total': _attribute(_attribute(_function(functions, 'whatif', True)(**{'draft_quantization': 'fp8'}), 'weights', _expression), 'total', _expression),
    ('whatif(draft_quantization="fp8").weights.total - gpu.usable', frozenset(())):
        lambda names, functions, params, _expression='whatif(draft_quantization="fp8").weights.total - gpu.usable': (_attribute(_attribute(_function(functions, 'whatif', True)(**{'draft_quantization': 'fp8'}), 'weights', _expression), 'total', _expression) - names['gpu.usable']),
    ('whatif(draft_tensor_parallel=1).draft.weights', frozenset(())):
        lambda names, functions, params, _expression='whatif(draft_tensor_parallel=1).draft.weights': _attribute(_attribute(_function(functions, 'whatif', True)(**{'draft_tensor_parallel': 1}), 'draft', _expression), 'weights', _expression),
    ('whatif(draft_tensor_parallel=1).kv.tokens', frozenset(())):
        lambda names, functions, params, _expression='whatif(draft_tensor_parallel=1).kv.tokens': _attribute(_attribute(_function(functions, 'whatif', True)(**{'draft_tensor_parallel': 1}), 'kv', _expression), 'tokens', _expression),
    ('whatif(draft_tensor_parallel=parallel.tensor).draft.weights', frozenset(())):
        lambda names, functions, params, _expression='whatif(draft_tensor_parallel=parallel.tensor).draft.weights': _attribute(_attribute(_function(functions, 'whatif', True)(**{'draft_tensor_parallel': names['parallel.tensor']}), 'draft', _expression), 'weights', _expression),
    ('whatif(draft_tensor_parallel=parallel.tensor).kv.tokens', frozenset(())):
        lambda names, functions, params, _expression='whatif(draft_tensor_parallel=parallel.tensor).kv.tokens': _attribute(_attribute(_function(functions, 'whatif', True)(**{'draft_tensor_parallel': names['parallel.tensor']}), 'kv', _expression), 'tokens', _expression),
    ('whatif(kv_cache_dtype="fp8").kv.tokens', frozenset(())):
        lambda names, functions, params, _expression='whatif(kv_cache_dtype="fp8").kv.tokens': _attribute(_attribute(_function(functions, 'whatif', True)(**{'kv_cache_dtype': 'fp8'}), 'kv', _expression), 'tokens', _expression),
    ('whatif(num_speculative_tokens=1).kv.tokens', frozenset(())):
        lambda names, functions, params, _expression='whatif(num_speculative_tokens=1).kv.tokens': _attribute(_attribute(_function(functions, 'whatif', True)(**{'num_speculative_tokens': 1}), 'kv', _expression), 'tokens', _expression),
    ('whatif(quantization="fp8").weights.total', frozenset(())):
        lambda names, functions, params, _expression='whatif(quantization="fp8").weights.total': _attribute(_attribute(_function(functions, 'whatif', True)(**{'quantization': 'fp8'}), 'weights', _expression), 'total', _expression),
    ('whatif(speculative_method="ngram").kv.tokens', frozenset(())):
        lambda names, functions, params, _expression='whatif(speculative_method="ngram").kv.tokens': _attribute(_attribute(_function(functions, 'whatif', True)(**{'speculative_method': 'ngram'}), 'kv', _expression), 'tokens', _expression),
    ('whatif(speculative_method="ngram").kv.tokens > kv.tokens', frozenset(())):
        lambda names, functions, params, _expression='whatif(speculative_method="ngram").kv.tokens > kv.tokens': (_attribute(_attribute(_function(functions, 'whatif', True)(**{'speculative_method': 'ngram'}), 'kv', _expression), 'tokens', _expression) > names['kv.tokens']),
    ('whatif(speculative_method="ngram").weights.total <= gpu.usable', frozenset(())):
        lambda names, functions, params, _expression='whatif(speculative_method="ngram").weights.total <= gpu.usable': (_attribute(_attribute(_function(functions, 'whatif', True)(**{'speculative_method': 'ngram'}), 'weights', _expression), 'total', _expression) <= names['gpu.usable']),
    ('whatif(tensor_parallel=parallel.next_tensor).kv.tokens', frozenset(())):
        lambda names, functions, params, _expression='whatif(tensor_parallel=parallel.next_tensor).kv.tokens': _attribute(_attribute(_function(functions, 'whatif', True)(**{'tensor_parallel': names['parallel.next_tensor']}), 'kv', _expression), 'tokens', _expression),
    ('whatif(tensor_parallel=parallel.tensor_to_fit).kv.tokens', frozenset(())):
        lambda names, functions, params, _expression='whatif(tensor_parallel=parallel.tensor_to_fit).kv.tokens': _attribute(_attribute(_function(functions, 'whatif', True)(**{'tensor_parallel': names['parallel.tensor_to_fit']}), 'kv', _expression), 'tokens', _expression),
    ('whatif(tensor_parallel=parallel.tensor_to_fit).weights.total', frozenset(())):
        lambda names, functions, params, _expression='whatif(tensor_parallel=parallel.tensor_to_fit).weights.total': _attribute(_attribute(_function(functions, 'whatif', True)(**{'tensor_parallel': names['parallel.tensor_to_fit']}), 'weights', _expression), 'total', _expression),
    ('workload.concurrency', frozenset(())):
        lambda names, functions, params, _expression='workload.concurrency', _s1=_name_attribute('workload', 'concurrency', 'workload.concurrency'): _s1(names, functions, params),
    ('workload.concurrency_fit', frozenset(())):
        lambda names, functions, params, _expression='workload.concurrency_fit', _s1=_name_attribute('workload', 'concurrency_fit', 'workload.concurrency_fit'): _s1(names, functions, params),
    ('workload.context_fit', frozenset(())):
        lambda names, functions, params, _expression='workload.context_fit', _s1=_name_attribute('workload', 'context_fit', 'workload.context_fit'): _s1(names, functions, params),
    ('workload.context_tokens', frozenset(())):
        lambda names, functions, params, _expression='workload.context_tokens', _s1=_name_attribute('workload', 'context_tokens', 'workload.context_tokens'): _s1(names, functions, params),
    ('workload.declared', frozenset(())):
        lambda names, functions, params, _expression='workload.declared', _s1=_name_attribute('workload', 'declared', 'workload.declared'): _s1(names, functions, params),
    ('workload.tokens_needed', frozenset(())):
        lambda names, functions, params, _expression='workload.tokens_needed', _s1=_name_attribute('workload', 'tokens_needed', 'workload.tokens_needed'): _s1(names, functions, params),
}
