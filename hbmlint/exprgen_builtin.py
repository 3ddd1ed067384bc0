"""The built-in rules' generated functions (exprgen.generated), compiled with the
package as any module is, and what rules.py reads of the built-in rules' `when` and
`check` without parsing them (PROGRAMS, for the flat names FLAT). Written by
tools/write_exprgen_builtin.py: do not edit.
"""

# ruff: noqa
# fmt: off
import ast

from .expressions import OPERATORS

FACTORIES = {
    "lambda names, functions, params: (('llama' in names['model.model_type']) or ('qwen' in names['model.model_type']) or ('minicpm' in names['model.model_type']) or ('gpt_oss' in names['model.model_type']) or ('hunyuan' in names['model.model_type']) or ('afmoe' in names['model.model_type']) or ('minimax' in names['model.model_type']) or ('deepseek' in names['model.model_type']) or ('kimi' in names['model.model_type']) or ('glm' in names['model.model_type']) or ('ernie' in names['model.model_type']))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (('llama' in names['model.model_type']) or ('qwen' in names['model.model_type']) or ('minicpm' in names['model.model_type']) or ('gpt_oss' in names['model.model_type']) or ('hunyuan' in names['model.model_type']) or ('afmoe' in names['model.model_type']) or ('minimax' in names['model.model_type']) or ('deepseek' in names['model.model_type']) or ('kimi' in names['model.model_type']) or ('glm' in names['model.model_type']) or ('ernie' in names['model.model_type'])),
    "lambda names, functions, params: (((names['model.quantization_method'] == names['model.checkpoint_quantization']) if (_kept := names._results) is None else _kept['model.quantization_method Eq model.checkpoint_quantization'] if 'model.quantization_method Eq model.checkpoint_quantization' in _kept else _kept.setdefault('model.quantization_method Eq model.checkpoint_quantization', (names['model.quantization_method'] == names['model.checkpoint_quantization']))) or ((names['model.checkpoint_quantization'] == 'gptq') and (names['model.quantization_method'] == 'gptq_marlin')) or ((names['model.checkpoint_quantization'] == 'awq') and (names['model.quantization_method'] == 'awq_marlin')))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (((names['model.quantization_method'] == names['model.checkpoint_quantization']) if (_kept := names._results) is None else _kept['model.quantization_method Eq model.checkpoint_quantization'] if 'model.quantization_method Eq model.checkpoint_quantization' in _kept else _kept.setdefault('model.quantization_method Eq model.checkpoint_quantization', (names['model.quantization_method'] == names['model.checkpoint_quantization']))) or ((names['model.checkpoint_quantization'] == 'gptq') and (names['model.quantization_method'] == 'gptq_marlin')) or ((names['model.checkpoint_quantization'] == 'awq') and (names['model.quantization_method'] == 'awq_marlin'))),
    "lambda names, functions, params: (((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable']))) and ((names['kv.tokens_high'] >= names['serving.max_model_len']) if (_kept := names._results) is None else _kept['kv.tokens_high GtE serving.max_model_len'] if 'kv.tokens_high GtE serving.max_model_len' in _kept else _kept.setdefault('kv.tokens_high GtE serving.max_model_len', (names['kv.tokens_high'] >= names['serving.max_model_len']))) and (names['serving.max_model_len_set'] or (names['serving.engine'] != 'tgi') or (not _function(functions, 'engine_at_least', False)('3.0'))) and (not names['serving.max_model_len_auto']))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable']))) and ((names['kv.tokens_high'] >= names['serving.max_model_len']) if (_kept := names._results) is None else _kept['kv.tokens_high GtE serving.max_model_len'] if 'kv.tokens_high GtE serving.max_model_len' in _kept else _kept.setdefault('kv.tokens_high GtE serving.max_model_len', (names['kv.tokens_high'] >= names['serving.max_model_len']))) and (names['serving.max_model_len_set'] or (names['serving.engine'] != 'tgi') or (not _function(functions, 'engine_at_least', False)('3.0'))) and (not names['serving.max_model_len_auto'])),
    "lambda names, functions, params: (((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable']))) and ((names['serving.engine'] != 'trtllm') or (_v1._magnitude <= 0 if type(_v1 := names['kv.tokens_high']) is _Quantity and _v1._units._dimensions else _v1 <= 0)))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable']))) and ((names['serving.engine'] != 'trtllm') or (_v1._magnitude <= 0 if type(_v1 := names['kv.tokens_high']) is _Quantity and _v1._units._dimensions else _v1 <= 0))),
    "lambda names, functions, params: ((_f1(names['model.attention_heads'], names['parallel.tensor']) == 0) and ((_f2(names['model.kv_heads'], names['parallel.tensor']) == 0) or (_f3(names['parallel.tensor'], names['model.kv_heads']) == 0)))":
        lambda _Quantity, _attribute, _expression, _function, _f1, _f2, _f3: lambda names, functions, params: ((_f1(names['model.attention_heads'], names['parallel.tensor']) == 0) and ((_f2(names['model.kv_heads'], names['parallel.tensor']) == 0) or (_f3(names['parallel.tensor'], names['model.kv_heads']) == 0))),
    "lambda names, functions, params: ((_f1(names['model.kv_heads'], names['parallel.tensor']) == 0) or (_f2(names['parallel.tensor'], names['model.kv_heads']) == 0))":
        lambda _Quantity, _attribute, _expression, _function, _f1, _f2: lambda names, functions, params: ((_f1(names['model.kv_heads'], names['parallel.tensor']) == 0) or (_f2(names['parallel.tensor'], names['model.kv_heads']) == 0)),
    "lambda names, functions, params: ((_s1(names, functions, params) and (((names['kv.tokens'] >= _s2(names, functions, params)) if (_kept := names._results) is None else _kept['kv.tokens GtE workload.tokens_needed'] if 'kv.tokens GtE workload.tokens_needed' in _kept else _kept.setdefault('kv.tokens GtE workload.tokens_needed', (names['kv.tokens'] >= _s2(names, functions, params)))) or ((_s3(names, functions, params) <= _s4(names, functions, params)) if (_kept := names._results) is None else _kept['workload.concurrency_fit_without_draft LtE workload.concurrency_fit'] if 'workload.concurrency_fit_without_draft LtE workload.concurrency_fit' in _kept else _kept.setdefault('workload.concurrency_fit_without_draft LtE workload.concurrency_fit', (_s3(names, functions, params) <= _s4(names, functions, params)))))) or ((not _s5(names, functions, params)) and (names['kv.tokens_displaced_by_draft'] <= _f7(params['max_displaced_share'], _f6(names['kv.tokens'], names['kv.tokens_displaced_by_draft'])))))":
        lambda _Quantity, _attribute, _expression, _function, _f6, _f7, _s1, _s2, _s3, _s4, _s5: lambda names, functions, params: ((_s1(names, functions, params) and (((names['kv.tokens'] >= _s2(names, functions, params)) if (_kept := names._results) is None else _kept['kv.tokens GtE workload.tokens_needed'] if 'kv.tokens GtE workload.tokens_needed' in _kept else _kept.setdefault('kv.tokens GtE workload.tokens_needed', (names['kv.tokens'] >= _s2(names, functions, params)))) or ((_s3(names, functions, params) <= _s4(names, functions, params)) if (_kept := names._results) is None else _kept['workload.concurrency_fit_without_draft LtE workload.concurrency_fit'] if 'workload.concurrency_fit_without_draft LtE workload.concurrency_fit' in _kept else _kept.setdefault('workload.concurrency_fit_without_draft LtE workload.concurrency_fit', (_s3(names, functions, params) <= _s4(names, functions, params)))))) or ((not _s5(names, functions, params)) and (names['kv.tokens_displaced_by_draft'] <= _f7(params['max_displaced_share'], _f6(names['kv.tokens'], names['kv.tokens_displaced_by_draft']))))),
    "lambda names, functions, params: ((_v1._magnitude > 0 if type(_v1 := names['gpu.compute_capability']) is _Quantity and _v1._units._dimensions else _v1 > 0) and ((names['model.dtype_requested'] == 'bfloat16') or (names['model.dtype_requested'] == 'bf16')))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: ((_v1._magnitude > 0 if type(_v1 := names['gpu.compute_capability']) is _Quantity and _v1._units._dimensions else _v1 > 0) and ((names['model.dtype_requested'] == 'bfloat16') or (names['model.dtype_requested'] == 'bf16'))),
    "lambda names, functions, params: ((_v1._magnitude > 0 if type(_v1 := names['gpu.compute_capability']) is _Quantity and _v1._units._dimensions else _v1 > 0) and ((names['model.quantization'] == 'nvfp4') or (names['model.quantization'] == 'mxfp4')))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: ((_v1._magnitude > 0 if type(_v1 := names['gpu.compute_capability']) is _Quantity and _v1._units._dimensions else _v1 > 0) and ((names['model.quantization'] == 'nvfp4') or (names['model.quantization'] == 'mxfp4'))),
    "lambda names, functions, params: ((_v1._magnitude > 0 if type(_v1 := names['gpu.compute_capability']) is _Quantity and _v1._units._dimensions else _v1 > 0) and (names['model.quantization'] == 'fp8'))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: ((_v1._magnitude > 0 if type(_v1 := names['gpu.compute_capability']) is _Quantity and _v1._units._dimensions else _v1 > 0) and (names['model.quantization'] == 'fp8')),
    "lambda names, functions, params: ((_v1._magnitude > 0 if type(_v1 := names['model.weight_block']) is _Quantity and _v1._units._dimensions else _v1 > 0) and (names['parallel.tensor'] > 1))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: ((_v1._magnitude > 0 if type(_v1 := names['model.weight_block']) is _Quantity and _v1._units._dimensions else _v1 > 0) and (names['parallel.tensor'] > 1)),
    "lambda names, functions, params: ((_v1._magnitude > 0 if type(_v1 := names['serving.kv_cache_memory_bytes']) is _Quantity and _v1._units._dimensions else _v1 > 0) and (_f2(names['weights.total'], names['serving.kv_cache_memory_bytes']) <= names['gpu.total']))":
        lambda _Quantity, _attribute, _expression, _function, _f2: lambda names, functions, params: ((_v1._magnitude > 0 if type(_v1 := names['serving.kv_cache_memory_bytes']) is _Quantity and _v1._units._dimensions else _v1 > 0) and (_f2(names['weights.total'], names['serving.kv_cache_memory_bytes']) <= names['gpu.total'])),
    "lambda names, functions, params: ((names['draft.max_model_len'] >= names['serving.max_model_len']) if (_kept := names._results) is None else _kept['draft.max_model_len GtE serving.max_model_len'] if 'draft.max_model_len GtE serving.max_model_len' in _kept else _kept.setdefault('draft.max_model_len GtE serving.max_model_len', (names['draft.max_model_len'] >= names['serving.max_model_len'])))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: ((names['draft.max_model_len'] >= names['serving.max_model_len']) if (_kept := names._results) is None else _kept['draft.max_model_len GtE serving.max_model_len'] if 'draft.max_model_len GtE serving.max_model_len' in _kept else _kept.setdefault('draft.max_model_len GtE serving.max_model_len', (names['draft.max_model_len'] >= names['serving.max_model_len']))),
    "lambda names, functions, params: ((names['draft.tensor_parallel'] == 1) or ((names['draft.tensor_parallel'] == names['parallel.tensor']) if (_kept := names._results) is None else _kept['draft.tensor_parallel Eq parallel.tensor'] if 'draft.tensor_parallel Eq parallel.tensor' in _kept else _kept.setdefault('draft.tensor_parallel Eq parallel.tensor', (names['draft.tensor_parallel'] == names['parallel.tensor']))))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: ((names['draft.tensor_parallel'] == 1) or ((names['draft.tensor_parallel'] == names['parallel.tensor']) if (_kept := names._results) is None else _kept['draft.tensor_parallel Eq parallel.tensor'] if 'draft.tensor_parallel Eq parallel.tensor' in _kept else _kept.setdefault('draft.tensor_parallel Eq parallel.tensor', (names['draft.tensor_parallel'] == names['parallel.tensor'])))),
    "lambda names, functions, params: ((names['gpu.vendor'] == 'nvidia') and (names['model.checkpoint_quantization'] in _c1) and (names['model.quantization_method'] in _c2))":
        lambda _Quantity, _attribute, _expression, _function, _c1, _c2: lambda names, functions, params: ((names['gpu.vendor'] == 'nvidia') and (names['model.checkpoint_quantization'] in _c1) and (names['model.quantization_method'] in _c2)),
    "lambda names, functions, params: ((names['kv.state_blocks_high'] >= names['serving.max_num_seqs']) if (_kept := names._results) is None else _kept['kv.state_blocks_high GtE serving.max_num_seqs'] if 'kv.state_blocks_high GtE serving.max_num_seqs' in _kept else _kept.setdefault('kv.state_blocks_high GtE serving.max_num_seqs', (names['kv.state_blocks_high'] >= names['serving.max_num_seqs'])))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: ((names['kv.state_blocks_high'] >= names['serving.max_num_seqs']) if (_kept := names._results) is None else _kept['kv.state_blocks_high GtE serving.max_num_seqs'] if 'kv.state_blocks_high GtE serving.max_num_seqs' in _kept else _kept.setdefault('kv.state_blocks_high GtE serving.max_num_seqs', (names['kv.state_blocks_high'] >= names['serving.max_num_seqs']))),
    "lambda names, functions, params: ((names['kv.tokens'] >= _s1(names, functions, params)) if (_kept := names._results) is None else _kept['kv.tokens GtE workload.tokens_needed'] if 'kv.tokens GtE workload.tokens_needed' in _kept else _kept.setdefault('kv.tokens GtE workload.tokens_needed', (names['kv.tokens'] >= _s1(names, functions, params))))":
        lambda _Quantity, _attribute, _expression, _function, _s1: lambda names, functions, params: ((names['kv.tokens'] >= _s1(names, functions, params)) if (_kept := names._results) is None else _kept['kv.tokens GtE workload.tokens_needed'] if 'kv.tokens GtE workload.tokens_needed' in _kept else _kept.setdefault('kv.tokens GtE workload.tokens_needed', (names['kv.tokens'] >= _s1(names, functions, params)))),
    "lambda names, functions, params: ((names['kv.tokens'] >= names['serving.max_model_len']) if (_kept := names._results) is None else _kept['kv.tokens GtE serving.max_model_len'] if 'kv.tokens GtE serving.max_model_len' in _kept else _kept.setdefault('kv.tokens GtE serving.max_model_len', (names['kv.tokens'] >= names['serving.max_model_len'])))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: ((names['kv.tokens'] >= names['serving.max_model_len']) if (_kept := names._results) is None else _kept['kv.tokens GtE serving.max_model_len'] if 'kv.tokens GtE serving.max_model_len' in _kept else _kept.setdefault('kv.tokens GtE serving.max_model_len', (names['kv.tokens'] >= names['serving.max_model_len']))),
    "lambda names, functions, params: ((names['kv.tokens_high'] >= names['serving.max_model_len']) if (_kept := names._results) is None else _kept['kv.tokens_high GtE serving.max_model_len'] if 'kv.tokens_high GtE serving.max_model_len' in _kept else _kept.setdefault('kv.tokens_high GtE serving.max_model_len', (names['kv.tokens_high'] >= names['serving.max_model_len'])))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: ((names['kv.tokens_high'] >= names['serving.max_model_len']) if (_kept := names._results) is None else _kept['kv.tokens_high GtE serving.max_model_len'] if 'kv.tokens_high GtE serving.max_model_len' in _kept else _kept.setdefault('kv.tokens_high GtE serving.max_model_len', (names['kv.tokens_high'] >= names['serving.max_model_len']))),
    "lambda names, functions, params: ((names['kv.tokens_low'] >= names['serving.max_model_len']) if (_kept := names._results) is None else _kept['kv.tokens_low GtE serving.max_model_len'] if 'kv.tokens_low GtE serving.max_model_len' in _kept else _kept.setdefault('kv.tokens_low GtE serving.max_model_len', (names['kv.tokens_low'] >= names['serving.max_model_len'])))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: ((names['kv.tokens_low'] >= names['serving.max_model_len']) if (_kept := names._results) is None else _kept['kv.tokens_low GtE serving.max_model_len'] if 'kv.tokens_low GtE serving.max_model_len' in _kept else _kept.setdefault('kv.tokens_low GtE serving.max_model_len', (names['kv.tokens_low'] >= names['serving.max_model_len']))),
    "lambda names, functions, params: ((names['model.dtype_requested'] == 'float16') and (names['model.model_type'] in _c1))":
        lambda _Quantity, _attribute, _expression, _function, _c1: lambda names, functions, params: ((names['model.dtype_requested'] == 'float16') and (names['model.model_type'] in _c1)),
    "lambda names, functions, params: ((names['model.max_length'] == 0) or ((names['serving.max_model_len'] >= names['model.max_length']) if (_kept := names._results) is None else _kept['serving.max_model_len GtE model.max_length'] if 'serving.max_model_len GtE model.max_length' in _kept else _kept.setdefault('serving.max_model_len GtE model.max_length', (names['serving.max_model_len'] >= names['model.max_length']))) or ((names['kv.tokens'] > names['serving.max_model_len']) if (_kept := names._results) is None else _kept['kv.tokens Gt serving.max_model_len'] if 'kv.tokens Gt serving.max_model_len' in _kept else _kept.setdefault('kv.tokens Gt serving.max_model_len', (names['kv.tokens'] > names['serving.max_model_len']))))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: ((names['model.max_length'] == 0) or ((names['serving.max_model_len'] >= names['model.max_length']) if (_kept := names._results) is None else _kept['serving.max_model_len GtE model.max_length'] if 'serving.max_model_len GtE model.max_length' in _kept else _kept.setdefault('serving.max_model_len GtE model.max_length', (names['serving.max_model_len'] >= names['model.max_length']))) or ((names['kv.tokens'] > names['serving.max_model_len']) if (_kept := names._results) is None else _kept['kv.tokens Gt serving.max_model_len'] if 'kv.tokens Gt serving.max_model_len' in _kept else _kept.setdefault('kv.tokens Gt serving.max_model_len', (names['kv.tokens'] > names['serving.max_model_len'])))),
    "lambda names, functions, params: ((names['model.quantization'] == 'fp8') and (names['gpu.compute_capability'] >= 8.0))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: ((names['model.quantization'] == 'fp8') and (names['gpu.compute_capability'] >= 8.0)),
    "lambda names, functions, params: ((names['serving.max_input_tokens'] < names['serving.max_model_len']) if (_kept := names._results) is None else _kept['serving.max_input_tokens Lt serving.max_model_len'] if 'serving.max_input_tokens Lt serving.max_model_len' in _kept else _kept.setdefault('serving.max_input_tokens Lt serving.max_model_len', (names['serving.max_input_tokens'] < names['serving.max_model_len'])))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: ((names['serving.max_input_tokens'] < names['serving.max_model_len']) if (_kept := names._results) is None else _kept['serving.max_input_tokens Lt serving.max_model_len'] if 'serving.max_input_tokens Lt serving.max_model_len' in _kept else _kept.setdefault('serving.max_input_tokens Lt serving.max_model_len', (names['serving.max_input_tokens'] < names['serving.max_model_len']))),
    "lambda names, functions, params: ((names['serving.max_model_len'] <= names['model.max_length']) if (_kept := names._results) is None else _kept['serving.max_model_len LtE model.max_length'] if 'serving.max_model_len LtE model.max_length' in _kept else _kept.setdefault('serving.max_model_len LtE model.max_length', (names['serving.max_model_len'] <= names['model.max_length'])))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: ((names['serving.max_model_len'] <= names['model.max_length']) if (_kept := names._results) is None else _kept['serving.max_model_len LtE model.max_length'] if 'serving.max_model_len LtE model.max_length' in _kept else _kept.setdefault('serving.max_model_len LtE model.max_length', (names['serving.max_model_len'] <= names['model.max_length']))),
    "lambda names, functions, params: ((names['serving.max_model_len'] <= names['model.max_length_sglang']) if (_kept := names._results) is None else _kept['serving.max_model_len LtE model.max_length_sglang'] if 'serving.max_model_len LtE model.max_length_sglang' in _kept else _kept.setdefault('serving.max_model_len LtE model.max_length_sglang', (names['serving.max_model_len'] <= names['model.max_length_sglang'])))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: ((names['serving.max_model_len'] <= names['model.max_length_sglang']) if (_kept := names._results) is None else _kept['serving.max_model_len LtE model.max_length_sglang'] if 'serving.max_model_len LtE model.max_length_sglang' in _kept else _kept.setdefault('serving.max_model_len LtE model.max_length_sglang', (names['serving.max_model_len'] <= names['model.max_length_sglang']))),
    "lambda names, functions, params: ((names['serving.max_model_len'] <= names['serving.kv_cache_max_tokens']) if (_kept := names._results) is None else _kept['serving.max_model_len LtE serving.kv_cache_max_tokens'] if 'serving.max_model_len LtE serving.kv_cache_max_tokens' in _kept else _kept.setdefault('serving.max_model_len LtE serving.kv_cache_max_tokens', (names['serving.max_model_len'] <= names['serving.kv_cache_max_tokens'])))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: ((names['serving.max_model_len'] <= names['serving.kv_cache_max_tokens']) if (_kept := names._results) is None else _kept['serving.max_model_len LtE serving.kv_cache_max_tokens'] if 'serving.max_model_len LtE serving.kv_cache_max_tokens' in _kept else _kept.setdefault('serving.max_model_len LtE serving.kv_cache_max_tokens', (names['serving.max_model_len'] <= names['serving.kv_cache_max_tokens']))),
    "lambda names, functions, params: ((names['serving.max_num_batched_tokens'] >= names['serving.max_num_seqs']) if (_kept := names._results) is None else _kept['serving.max_num_batched_tokens GtE serving.max_num_seqs'] if 'serving.max_num_batched_tokens GtE serving.max_num_seqs' in _kept else _kept.setdefault('serving.max_num_batched_tokens GtE serving.max_num_seqs', (names['serving.max_num_batched_tokens'] >= names['serving.max_num_seqs'])))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: ((names['serving.max_num_batched_tokens'] >= names['serving.max_num_seqs']) if (_kept := names._results) is None else _kept['serving.max_num_batched_tokens GtE serving.max_num_seqs'] if 'serving.max_num_batched_tokens GtE serving.max_num_seqs' in _kept else _kept.setdefault('serving.max_num_batched_tokens GtE serving.max_num_seqs', (names['serving.max_num_batched_tokens'] >= names['serving.max_num_seqs']))),
    "lambda names, functions, params: ((names['speculative.method'] != 'none') and (((names['weights.total'] > names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total Gt gpu.usable'] if 'weights.total Gt gpu.usable' in _kept else _kept.setdefault('weights.total Gt gpu.usable', (names['weights.total'] > names['gpu.usable']))) or (_s1(names, functions, params) and ((names['kv.tokens'] < _s2(names, functions, params)) if (_kept := names._results) is None else _kept['kv.tokens Lt workload.tokens_needed'] if 'kv.tokens Lt workload.tokens_needed' in _kept else _kept.setdefault('kv.tokens Lt workload.tokens_needed', (names['kv.tokens'] < _s2(names, functions, params))))) or ((not _s3(names, functions, params)) and (names['kv.max_concurrency'] < params['tight_sequences']))))":
        lambda _Quantity, _attribute, _expression, _function, _s1, _s2, _s3: lambda names, functions, params: ((names['speculative.method'] != 'none') and (((names['weights.total'] > names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total Gt gpu.usable'] if 'weights.total Gt gpu.usable' in _kept else _kept.setdefault('weights.total Gt gpu.usable', (names['weights.total'] > names['gpu.usable']))) or (_s1(names, functions, params) and ((names['kv.tokens'] < _s2(names, functions, params)) if (_kept := names._results) is None else _kept['kv.tokens Lt workload.tokens_needed'] if 'kv.tokens Lt workload.tokens_needed' in _kept else _kept.setdefault('kv.tokens Lt workload.tokens_needed', (names['kv.tokens'] < _s2(names, functions, params))))) or ((not _s3(names, functions, params)) and (names['kv.max_concurrency'] < params['tight_sequences'])))),
    "lambda names, functions, params: ((names['speculative.method'] != 'none') and _s1(names, functions, params))":
        lambda _Quantity, _attribute, _expression, _function, _s1: lambda names, functions, params: ((names['speculative.method'] != 'none') and _s1(names, functions, params)),
    "lambda names, functions, params: ((names['speculative.method'] == 'eagle3') and (names['model.model_type'] != ''))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: ((names['speculative.method'] == 'eagle3') and (names['model.model_type'] != '')),
    "lambda names, functions, params: ((names['speculative.method'] == 'mtp') and (names['model.mtp_layers'] == 0) and (names['model.model_type'] in _c1))":
        lambda _Quantity, _attribute, _expression, _function, _c1: lambda names, functions, params: ((names['speculative.method'] == 'mtp') and (names['model.mtp_layers'] == 0) and (names['model.model_type'] in _c1)),
    "lambda names, functions, params: ((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable'])))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: ((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable']))),
    "lambda names, functions, params: ((not _attribute(_function(functions, 'tradeoff', False)(), 'changes', _expression)) or (_attribute(_function(functions, 'tradeoff', False)(), 'current_starts', _expression) and (_attribute(_function(functions, 'tradeoff', False)(), 'gain', _expression) < _f1(1, params['min_gain']))))":
        lambda _Quantity, _attribute, _expression, _function, _f1: lambda names, functions, params: ((not _attribute(_function(functions, 'tradeoff', False)(), 'changes', _expression)) or (_attribute(_function(functions, 'tradeoff', False)(), 'current_starts', _expression) and (_attribute(_function(functions, 'tradeoff', False)(), 'gain', _expression) < _f1(1, params['min_gain'])))),
    "lambda names, functions, params: ((not _attribute(_function(functions, 'tradeoff', False)(), 'current_starts', _expression)) or (not _attribute(_attribute(_function(functions, 'tradeoff', False)(), 'current', _expression), 'estimated', _expression)) or (_attribute(_attribute(_function(functions, 'tradeoff', False)(), 'current', _expression), 'speedup', _expression) >= params['min_speedup']))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: ((not _attribute(_function(functions, 'tradeoff', False)(), 'current_starts', _expression)) or (not _attribute(_attribute(_function(functions, 'tradeoff', False)(), 'current', _expression), 'estimated', _expression)) or (_attribute(_attribute(_function(functions, 'tradeoff', False)(), 'current', _expression), 'speedup', _expression) >= params['min_speedup'])),
    "lambda names, functions, params: ((not names['model.mla']) and (_v1._magnitude > 0 if type(_v1 := names['model.kv_heads']) is _Quantity and _v1._units._dimensions else _v1 > 0) and (_f2(names['model.attention_heads'], names['parallel.tensor']) == 0))":
        lambda _Quantity, _attribute, _expression, _function, _f2: lambda names, functions, params: ((not names['model.mla']) and (_v1._magnitude > 0 if type(_v1 := names['model.kv_heads']) is _Quantity and _v1._units._dimensions else _v1 > 0) and (_f2(names['model.attention_heads'], names['parallel.tensor']) == 0)),
    "lambda names, functions, params: ((not names['model.mla']) and (not names['parallel.dp_attention']) and (_v1._magnitude > 0 if type(_v1 := names['model.attention_heads']) is _Quantity and _v1._units._dimensions else _v1 > 0) and (_v2._magnitude > 0 if type(_v2 := names['model.kv_heads']) is _Quantity and _v2._units._dimensions else _v2 > 0))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: ((not names['model.mla']) and (not names['parallel.dp_attention']) and (_v1._magnitude > 0 if type(_v1 := names['model.attention_heads']) is _Quantity and _v1._units._dimensions else _v1 > 0) and (_v2._magnitude > 0 if type(_v2 := names['model.kv_heads']) is _Quantity and _v2._units._dimensions else _v2 > 0)),
    "lambda names, functions, params: ((not names['serving.legacy_engine']) and names['serving.full_cuda_graphs'] and ((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable']))) and (_v1._magnitude > 0 if type(_v1 := names['kv.state_blocks_high']) is _Quantity and _v1._units._dimensions else _v1 > 0) and ((names['kv.tokens_high'] >= names['serving.max_model_len']) if (_kept := names._results) is None else _kept['kv.tokens_high GtE serving.max_model_len'] if 'kv.tokens_high GtE serving.max_model_len' in _kept else _kept.setdefault('kv.tokens_high GtE serving.max_model_len', (names['kv.tokens_high'] >= names['serving.max_model_len']))))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: ((not names['serving.legacy_engine']) and names['serving.full_cuda_graphs'] and ((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable']))) and (_v1._magnitude > 0 if type(_v1 := names['kv.state_blocks_high']) is _Quantity and _v1._units._dimensions else _v1 > 0) and ((names['kv.tokens_high'] >= names['serving.max_model_len']) if (_kept := names._results) is None else _kept['kv.tokens_high GtE serving.max_model_len'] if 'kv.tokens_high GtE serving.max_model_len' in _kept else _kept.setdefault('kv.tokens_high GtE serving.max_model_len', (names['kv.tokens_high'] >= names['serving.max_model_len'])))),
    "lambda names, functions, params: (_f1(names['model.attention_heads'], names['parallel.tensor']) == 0)":
        lambda _Quantity, _attribute, _expression, _function, _f1: lambda names, functions, params: (_f1(names['model.attention_heads'], names['parallel.tensor']) == 0),
    "lambda names, functions, params: (_f1(names['serving.max_num_batched_tokens'], params['token']) >= names['serving.max_model_len'])":
        lambda _Quantity, _attribute, _expression, _function, _f1: lambda names, functions, params: (_f1(names['serving.max_num_batched_tokens'], params['token']) >= names['serving.max_model_len']),
    "lambda names, functions, params: (_f1(names['weights.total'], names['serving.kv_cache_memory_bytes']) <= names['gpu.total'])":
        lambda _Quantity, _attribute, _expression, _function, _f1: lambda names, functions, params: (_f1(names['weights.total'], names['serving.kv_cache_memory_bytes']) <= names['gpu.total']),
    "lambda names, functions, params: (_f3(_f1(names['weights.total'], names['serving.kv_cache_memory_bytes']), _s2(names, functions, params)) <= names['gpu.total'])":
        lambda _Quantity, _attribute, _expression, _function, _f1, _f3, _s2: lambda names, functions, params: (_f3(_f1(names['weights.total'], names['serving.kv_cache_memory_bytes']), _s2(names, functions, params)) <= names['gpu.total']),
    "lambda names, functions, params: (_function(functions, 'abs', False)((names['draft.vocab_size'] - names['model.vocab_size'])) <= params['vocab_tolerance'])":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (_function(functions, 'abs', False)((names['draft.vocab_size'] - names['model.vocab_size'])) <= params['vocab_tolerance']),
    "lambda names, functions, params: (_s1(names, functions, params) and ((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable']))))":
        lambda _Quantity, _attribute, _expression, _function, _s1: lambda names, functions, params: (_s1(names, functions, params) and ((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable'])))),
    "lambda names, functions, params: (_v1._magnitude > 0 if type(_v1 := names['gpu.compute_capability']) is _Quantity and _v1._units._dimensions else _v1 > 0)":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (_v1._magnitude > 0 if type(_v1 := names['gpu.compute_capability']) is _Quantity and _v1._units._dimensions else _v1 > 0),
    "lambda names, functions, params: (_v1._magnitude > 0 if type(_v1 := names['kv.tokens_displaced_by_state_slots']) is _Quantity and _v1._units._dimensions else _v1 > 0)":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (_v1._magnitude > 0 if type(_v1 := names['kv.tokens_displaced_by_state_slots']) is _Quantity and _v1._units._dimensions else _v1 > 0),
    "lambda names, functions, params: (_v1._magnitude > 0 if type(_v1 := names['model.attention_heads']) is _Quantity and _v1._units._dimensions else _v1 > 0)":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (_v1._magnitude > 0 if type(_v1 := names['model.attention_heads']) is _Quantity and _v1._units._dimensions else _v1 > 0),
    "lambda names, functions, params: (_v1._magnitude > 0 if type(_v1 := names['model.experts']) is _Quantity and _v1._units._dimensions else _v1 > 0)":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (_v1._magnitude > 0 if type(_v1 := names['model.experts']) is _Quantity and _v1._units._dimensions else _v1 > 0),
    "lambda names, functions, params: (_v1._magnitude > 0 if type(_v1 := names['serving.kv_cache_memory_bytes']) is _Quantity and _v1._units._dimensions else _v1 > 0)":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (_v1._magnitude > 0 if type(_v1 := names['serving.kv_cache_memory_bytes']) is _Quantity and _v1._units._dimensions else _v1 > 0),
    "lambda names, functions, params: (_v1._magnitude > 0 if type(_v1 := names['speculative.n_predict']) is _Quantity and _v1._units._dimensions else _v1 > 0)":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (_v1._magnitude > 0 if type(_v1 := names['speculative.n_predict']) is _Quantity and _v1._units._dimensions else _v1 > 0),
    "lambda names, functions, params: (names['draft.parameter_ratio'] <= params['max_ratio'])":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (names['draft.parameter_ratio'] <= params['max_ratio']),
    "lambda names, functions, params: (names['draft.present'] and ((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable']))))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (names['draft.present'] and ((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable'])))),
    "lambda names, functions, params: (names['draft.present'] and (names['speculative.method'] != 'mtp') and (names['speculative.method'] != 'early_exit'))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (names['draft.present'] and (names['speculative.method'] != 'mtp') and (names['speculative.method'] != 'early_exit')),
    "lambda names, functions, params: (names['draft.separate_model'] and (_v1._magnitude > 0 if type(_v1 := names['model.parameters']) is _Quantity and _v1._units._dimensions else _v1 > 0))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (names['draft.separate_model'] and (_v1._magnitude > 0 if type(_v1 := names['model.parameters']) is _Quantity and _v1._units._dimensions else _v1 > 0)),
    "lambda names, functions, params: (names['draft.weights'] <= _f1(params['max_share'], names['gpu.usable']))":
        lambda _Quantity, _attribute, _expression, _function, _f1: lambda names, functions, params: (names['draft.weights'] <= _f1(params['max_share'], names['gpu.usable'])),
    "lambda names, functions, params: (names['gpu.compute_capability'] >= 7.0)":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (names['gpu.compute_capability'] >= 7.0),
    "lambda names, functions, params: (names['gpu.compute_capability'] >= 8.0)":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (names['gpu.compute_capability'] >= 8.0),
    "lambda names, functions, params: (names['gpu.compute_capability'] >= 8.9)":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (names['gpu.compute_capability'] >= 8.9),
    "lambda names, functions, params: (names['gpu.memory_fraction'] <= 0.85)":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (names['gpu.memory_fraction'] <= 0.85),
    "lambda names, functions, params: (names['kv.tokens_displaced_by_state_slots'] <= _f1(params['max_displaced_share'], names['kv.tokens_without_draft']))":
        lambda _Quantity, _attribute, _expression, _function, _f1: lambda names, functions, params: (names['kv.tokens_displaced_by_state_slots'] <= _f1(params['max_displaced_share'], names['kv.tokens_without_draft'])),
    "lambda names, functions, params: (names['model.block_misfit'] == 0)":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (names['model.block_misfit'] == 0),
    "lambda names, functions, params: (names['parallel.expert'] and (_v1._magnitude > 0 if type(_v1 := names['model.parameters']) is _Quantity and _v1._units._dimensions else _v1 > 0))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (names['parallel.expert'] and (_v1._magnitude > 0 if type(_v1 := names['model.parameters']) is _Quantity and _v1._units._dimensions else _v1 > 0)),
    "lambda names, functions, params: (names['serving.block_size'] in _c1)":
        lambda _Quantity, _attribute, _expression, _function, _c1: lambda names, functions, params: (names['serving.block_size'] in _c1),
    "lambda names, functions, params: (names['serving.max_input_tokens_set'] and names['serving.max_model_len_set'])":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (names['serving.max_input_tokens_set'] and names['serving.max_model_len_set']),
    "lambda names, functions, params: (names['serving.max_model_len_auto'] and ((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable']))) and (_v1._magnitude > 0 if type(_v1 := names['kv.tokens']) is _Quantity and _v1._units._dimensions else _v1 > 0))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (names['serving.max_model_len_auto'] and ((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable']))) and (_v1._magnitude > 0 if type(_v1 := names['kv.tokens']) is _Quantity and _v1._units._dimensions else _v1 > 0)),
    "lambda names, functions, params: (names['serving.max_model_len_set'] and ((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable']))) and (_v1._magnitude > 0 if type(_v1 := names['kv.tokens_high']) is _Quantity and _v1._units._dimensions else _v1 > 0))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (names['serving.max_model_len_set'] and ((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable']))) and (_v1._magnitude > 0 if type(_v1 := names['kv.tokens_high']) is _Quantity and _v1._units._dimensions else _v1 > 0)),
    "lambda names, functions, params: (names['serving.max_model_len_set'] and ((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable']))))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (names['serving.max_model_len_set'] and ((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable'])))),
    "lambda names, functions, params: (names['serving.max_model_len_set'] and (_v1._magnitude > 0 if type(_v1 := names['model.max_length']) is _Quantity and _v1._units._dimensions else _v1 > 0) and (not names['serving.allow_long_max_model_len']) and (not names['serving.model_overrides']))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (names['serving.max_model_len_set'] and (_v1._magnitude > 0 if type(_v1 := names['model.max_length']) is _Quantity and _v1._units._dimensions else _v1 > 0) and (not names['serving.allow_long_max_model_len']) and (not names['serving.model_overrides'])),
    "lambda names, functions, params: (names['serving.max_model_len_set'] and (_v1._magnitude > 0 if type(_v1 := names['model.max_length_sglang']) is _Quantity and _v1._units._dimensions else _v1 > 0) and (not names['serving.allow_long_max_model_len']) and (not names['serving.model_overrides']))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (names['serving.max_model_len_set'] and (_v1._magnitude > 0 if type(_v1 := names['model.max_length_sglang']) is _Quantity and _v1._units._dimensions else _v1 > 0) and (not names['serving.allow_long_max_model_len']) and (not names['serving.model_overrides'])),
    "lambda names, functions, params: (names['serving.max_model_len_set'] and (_v1._magnitude > 0 if type(_v1 := names['serving.kv_cache_max_tokens']) is _Quantity and _v1._units._dimensions else _v1 > 0))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (names['serving.max_model_len_set'] and (_v1._magnitude > 0 if type(_v1 := names['serving.kv_cache_max_tokens']) is _Quantity and _v1._units._dimensions else _v1 > 0)),
    "lambda names, functions, params: (names['serving.max_num_batched_tokens_set'] and names['serving.max_model_len_set'] and ((names['serving.legacy_engine'] and ((names['serving.chunked_prefill'] == 'off') or ((names['serving.chunked_prefill'] == 'default') and (names['serving.max_model_len'] <= params['v0_chunked_prefill_above'])))) or ((not names['serving.legacy_engine']) and (names['serving.chunked_prefill'] == 'off') and _function(functions, 'engine_at_least', False)('0.12'))))":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (names['serving.max_num_batched_tokens_set'] and names['serving.max_model_len_set'] and ((names['serving.legacy_engine'] and ((names['serving.chunked_prefill'] == 'off') or ((names['serving.chunked_prefill'] == 'default') and (names['serving.max_model_len'] <= params['v0_chunked_prefill_above'])))) or ((not names['serving.legacy_engine']) and (names['serving.chunked_prefill'] == 'off') and _function(functions, 'engine_at_least', False)('0.12')))),
    "lambda names, functions, params: (names['serving.max_num_batched_tokens_set'] and names['serving.max_num_seqs_set'])":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: (names['serving.max_num_batched_tokens_set'] and names['serving.max_num_seqs_set']),
    'lambda names, functions, params: False':
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: False,
    "lambda names, functions, params: names['draft.present']":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: names['draft.present'],
    "lambda names, functions, params: names['draft.separate_model']":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: names['draft.separate_model'],
    "lambda names, functions, params: names['draft.tensor_parallel_set']":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: names['draft.tensor_parallel_set'],
    "lambda names, functions, params: names['gpu.unified_memory']":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: names['gpu.unified_memory'],
    "lambda names, functions, params: names['serving.block_size_set']":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: names['serving.block_size_set'],
    "lambda names, functions, params: names['serving.max_model_len_suffixed']":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: names['serving.max_model_len_suffixed'],
    "lambda names, functions, params: names['serving.max_num_batched_tokens_suffixed']":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: names['serving.max_num_batched_tokens_suffixed'],
    "lambda names, functions, params: names['speculative.tokens_supported']":
        lambda _Quantity, _attribute, _expression, _function: lambda names, functions, params: names['speculative.tokens_supported'],
}
FLAT = frozenset({
    'draft.host_weights',
    'draft.kv_bytes_per_token',
    'draft.kv_cache_dtype',
    'draft.kv_fp8',
    'draft.max_model_len',
    'draft.name',
    'draft.offloaded',
    'draft.parameter_ratio',
    'draft.parameters',
    'draft.present',
    'draft.quantization',
    'draft.separate_model',
    'draft.tensor_parallel',
    'draft.tensor_parallel_set',
    'draft.vocab_size',
    'draft.weights',
    'gpu.compute_capability',
    'gpu.count',
    'gpu.fp8',
    'gpu.memory_fraction',
    'gpu.name',
    'gpu.total',
    'gpu.unified_memory',
    'gpu.usable',
    'gpu.usable_share',
    'gpu.vendor',
    'kv.bytes',
    'kv.bytes_per_token',
    'kv.fp8',
    'kv.max_concurrency',
    'kv.max_model_len_fit',
    'kv.sequences_displaced_by_draft',
    'kv.shortfall',
    'kv.state_blocks',
    'kv.state_blocks_high',
    'kv.state_blocks_low',
    'kv.tokens',
    'kv.tokens_displaced_by_draft',
    'kv.tokens_displaced_by_state_slots',
    'kv.tokens_high',
    'kv.tokens_low',
    'kv.tokens_without_draft',
    'model.attention_heads',
    'model.block_misfit',
    'model.block_misfit_what',
    'model.checkpoint_quantization',
    'model.dtype',
    'model.dtype_requested',
    'model.experts',
    'model.kv_heads',
    'model.layers',
    'model.max_length',
    'model.max_length_sglang',
    'model.mla',
    'model.model_type',
    'model.mtp_layers',
    'model.name',
    'model.parameters',
    'model.quantization',
    'model.quantization_method',
    'model.quantization_requested',
    'model.vocab_size',
    'model.weight_block',
    'model.weights',
    'parallel.block_tensor',
    'parallel.data',
    'parallel.dp_attention',
    'parallel.expert',
    'parallel.next_tensor',
    'parallel.pipeline',
    'parallel.tensor',
    'parallel.tensor_to_fit',
    'serving.allow_long_max_model_len',
    'serving.block_size',
    'serving.block_size_set',
    'serving.chunked_prefill',
    'serving.enforce_eager',
    'serving.engine',
    'serving.full_cuda_graphs',
    'serving.kv_cache_dtype',
    'serving.kv_cache_max_tokens',
    'serving.kv_cache_memory_bytes',
    'serving.legacy_engine',
    'serving.max_input_tokens',
    'serving.max_input_tokens_set',
    'serving.max_model_len',
    'serving.max_model_len_auto',
    'serving.max_model_len_set',
    'serving.max_model_len_suffixed',
    'serving.max_num_batched_tokens',
    'serving.max_num_batched_tokens_set',
    'serving.max_num_batched_tokens_suffixed',
    'serving.max_num_seqs',
    'serving.max_num_seqs_set',
    'serving.memory_fraction',
    'serving.model_overrides',
    'speculative.method',
    'speculative.n_predict',
    'speculative.num_speculative_tokens',
    'speculative.tokens_supported',
    'speculative.verify_tokens',
    'weights.total',
})
PROGRAMS = {
    ('"llama" in model.model_type or "qwen" in model.model_type or "minicpm" in model.model_type or "gpt_oss" in model.model_type or "hunyuan" in model.model_type or "afmoe" in model.model_type or "minimax" in model.model_type or "deepseek" in model.model_type or "kimi" in model.model_type or "glm" in model.model_type or "ernie" in model.model_type', frozenset(())):
        ("lambda names, functions, params: (('llama' in names['model.model_type']) or ('qwen' in names['model.model_type']) or ('minicpm' in names['model.model_type']) or ('gpt_oss' in names['model.model_type']) or ('hunyuan' in names['model.model_type']) or ('afmoe' in names['model.model_type']) or ('minimax' in names['model.model_type']) or ('deepseek' in names['model.model_type']) or ('kimi' in names['model.model_type']) or ('glm' in names['model.model_type']) or ('ernie' in names['model.model_type']))", {}, ('model.model_type',), None),
    ('False', frozenset(())):
        ('lambda names, functions, params: False', {}, (), None),
    ('False', frozenset(('token',))):
        ('lambda names, functions, params: False', {}, (), None),
    ('abs(draft.vocab_size - model.vocab_size) <= vocab_tolerance', frozenset(('vocab_tolerance',))):
        ("lambda names, functions, params: (_function(functions, 'abs', False)((names['draft.vocab_size'] - names['model.vocab_size'])) <= params['vocab_tolerance'])", {}, (), None),
    ('draft.max_model_len >= serving.max_model_len', frozenset(())):
        ("lambda names, functions, params: ((names['draft.max_model_len'] >= names['serving.max_model_len']) if (_kept := names._results) is None else _kept['draft.max_model_len GtE serving.max_model_len'] if 'draft.max_model_len GtE serving.max_model_len' in _kept else _kept.setdefault('draft.max_model_len GtE serving.max_model_len', (names['draft.max_model_len'] >= names['serving.max_model_len'])))", {}, ('draft.max_model_len', 'serving.max_model_len'), None),
    ('draft.parameter_ratio <= max_ratio', frozenset(('max_ratio',))):
        ("lambda names, functions, params: (names['draft.parameter_ratio'] <= params['max_ratio'])", {}, ('draft.parameter_ratio',), None),
    ('draft.present', frozenset(('max_share',))):
        ("lambda names, functions, params: names['draft.present']", {}, ('draft.present',), 'draft.present'),
    ('draft.present and speculative.method != "mtp" and speculative.method != "early_exit"', frozenset(())):
        ("lambda names, functions, params: (names['draft.present'] and (names['speculative.method'] != 'mtp') and (names['speculative.method'] != 'early_exit'))", {}, ('draft.present',), 'draft.present'),
    ('draft.present and weights.total <= gpu.usable', frozenset(('max_displaced_share',))):
        ("lambda names, functions, params: (names['draft.present'] and ((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable']))))", {}, ('draft.present',), 'draft.present'),
    ('draft.separate_model', frozenset(('vocab_tolerance',))):
        ("lambda names, functions, params: names['draft.separate_model']", {}, ('draft.separate_model',), 'draft.separate_model'),
    ('draft.separate_model and model.parameters > 0', frozenset(('max_ratio',))):
        ("lambda names, functions, params: (names['draft.separate_model'] and (_v1._magnitude > 0 if type(_v1 := names['model.parameters']) is _Quantity and _v1._units._dimensions else _v1 > 0))", {}, ('draft.separate_model',), 'draft.separate_model'),
    ('draft.tensor_parallel == 1 or draft.tensor_parallel == parallel.tensor', frozenset(())):
        ("lambda names, functions, params: ((names['draft.tensor_parallel'] == 1) or ((names['draft.tensor_parallel'] == names['parallel.tensor']) if (_kept := names._results) is None else _kept['draft.tensor_parallel Eq parallel.tensor'] if 'draft.tensor_parallel Eq parallel.tensor' in _kept else _kept.setdefault('draft.tensor_parallel Eq parallel.tensor', (names['draft.tensor_parallel'] == names['parallel.tensor']))))", {}, ('draft.tensor_parallel',), None),
    ('draft.tensor_parallel_set', frozenset(())):
        ("lambda names, functions, params: names['draft.tensor_parallel_set']", {}, ('draft.tensor_parallel_set',), 'draft.tensor_parallel_set'),
    ('draft.weights <= max_share * gpu.usable', frozenset(('max_share',))):
        ("lambda names, functions, params: (names['draft.weights'] <= _f1(params['max_share'], names['gpu.usable']))", {'_f1': OPERATORS[ast.Mult]}, ('draft.weights', 'gpu.usable'), None),
    ('gpu.compute_capability > 0', frozenset(())):
        ("lambda names, functions, params: (_v1._magnitude > 0 if type(_v1 := names['gpu.compute_capability']) is _Quantity and _v1._units._dimensions else _v1 > 0)", {}, ('gpu.compute_capability',), None),
    ('gpu.compute_capability > 0 and (model.dtype_requested == "bfloat16" or model.dtype_requested == "bf16")', frozenset(())):
        ("lambda names, functions, params: ((_v1._magnitude > 0 if type(_v1 := names['gpu.compute_capability']) is _Quantity and _v1._units._dimensions else _v1 > 0) and ((names['model.dtype_requested'] == 'bfloat16') or (names['model.dtype_requested'] == 'bf16')))", {}, ('gpu.compute_capability',), None),
    ('gpu.compute_capability > 0 and (model.quantization == "nvfp4" or model.quantization == "mxfp4")', frozenset(())):
        ("lambda names, functions, params: ((_v1._magnitude > 0 if type(_v1 := names['gpu.compute_capability']) is _Quantity and _v1._units._dimensions else _v1 > 0) and ((names['model.quantization'] == 'nvfp4') or (names['model.quantization'] == 'mxfp4')))", {}, ('gpu.compute_capability',), None),
    ('gpu.compute_capability > 0 and model.quantization == "fp8"', frozenset(())):
        ("lambda names, functions, params: ((_v1._magnitude > 0 if type(_v1 := names['gpu.compute_capability']) is _Quantity and _v1._units._dimensions else _v1 > 0) and (names['model.quantization'] == 'fp8'))", {}, ('gpu.compute_capability',), None),
    ('gpu.compute_capability >= 7.0', frozenset(())):
        ("lambda names, functions, params: (names['gpu.compute_capability'] >= 7.0)", {}, ('gpu.compute_capability',), None),
    ('gpu.compute_capability >= 8.0', frozenset(())):
        ("lambda names, functions, params: (names['gpu.compute_capability'] >= 8.0)", {}, ('gpu.compute_capability',), None),
    ('gpu.compute_capability >= 8.9', frozenset(())):
        ("lambda names, functions, params: (names['gpu.compute_capability'] >= 8.9)", {}, ('gpu.compute_capability',), None),
    ('gpu.memory_fraction <= 0.85', frozenset(())):
        ("lambda names, functions, params: (names['gpu.memory_fraction'] <= 0.85)", {}, ('gpu.memory_fraction',), None),
    ('gpu.unified_memory', frozenset(())):
        ("lambda names, functions, params: names['gpu.unified_memory']", {}, ('gpu.unified_memory',), 'gpu.unified_memory'),
    ('gpu.vendor == "nvidia" and model.checkpoint_quantization in ("gptq", "awq", "fp8", "compressed-tensors", "bitsandbytes") and model.quantization_method in ("gptq", "gptq_marlin", "awq", "awq_marlin", "fp8", "compressed-tensors", "bitsandbytes")', frozenset(())):
        ("lambda names, functions, params: ((names['gpu.vendor'] == 'nvidia') and (names['model.checkpoint_quantization'] in _c1) and (names['model.quantization_method'] in _c2))", {'_c1': ('gptq', 'awq', 'fp8', 'compressed-tensors', 'bitsandbytes', ), '_c2': ('gptq', 'gptq_marlin', 'awq', 'awq_marlin', 'fp8', 'compressed-tensors', 'bitsandbytes', )}, ('gpu.vendor',), None),
    ('kv.state_blocks_high >= serving.max_num_seqs', frozenset(())):
        ("lambda names, functions, params: ((names['kv.state_blocks_high'] >= names['serving.max_num_seqs']) if (_kept := names._results) is None else _kept['kv.state_blocks_high GtE serving.max_num_seqs'] if 'kv.state_blocks_high GtE serving.max_num_seqs' in _kept else _kept.setdefault('kv.state_blocks_high GtE serving.max_num_seqs', (names['kv.state_blocks_high'] >= names['serving.max_num_seqs'])))", {}, ('kv.state_blocks_high', 'serving.max_num_seqs'), None),
    ('kv.tokens >= serving.max_model_len', frozenset(())):
        ("lambda names, functions, params: ((names['kv.tokens'] >= names['serving.max_model_len']) if (_kept := names._results) is None else _kept['kv.tokens GtE serving.max_model_len'] if 'kv.tokens GtE serving.max_model_len' in _kept else _kept.setdefault('kv.tokens GtE serving.max_model_len', (names['kv.tokens'] >= names['serving.max_model_len'])))", {}, ('kv.tokens', 'serving.max_model_len'), None),
    ('kv.tokens_displaced_by_state_slots <= max_displaced_share * kv.tokens_without_draft', frozenset(('max_displaced_share',))):
        ("lambda names, functions, params: (names['kv.tokens_displaced_by_state_slots'] <= _f1(params['max_displaced_share'], names['kv.tokens_without_draft']))", {'_f1': OPERATORS[ast.Mult]}, ('kv.tokens_displaced_by_state_slots', 'kv.tokens_without_draft'), None),
    ('kv.tokens_displaced_by_state_slots > 0', frozenset(('max_displaced_share',))):
        ("lambda names, functions, params: (_v1._magnitude > 0 if type(_v1 := names['kv.tokens_displaced_by_state_slots']) is _Quantity and _v1._units._dimensions else _v1 > 0)", {}, ('kv.tokens_displaced_by_state_slots',), None),
    ('kv.tokens_high >= serving.max_model_len', frozenset(())):
        ("lambda names, functions, params: ((names['kv.tokens_high'] >= names['serving.max_model_len']) if (_kept := names._results) is None else _kept['kv.tokens_high GtE serving.max_model_len'] if 'kv.tokens_high GtE serving.max_model_len' in _kept else _kept.setdefault('kv.tokens_high GtE serving.max_model_len', (names['kv.tokens_high'] >= names['serving.max_model_len'])))", {}, ('kv.tokens_high', 'serving.max_model_len'), None),
    ('kv.tokens_low >= serving.max_model_len', frozenset(())):
        ("lambda names, functions, params: ((names['kv.tokens_low'] >= names['serving.max_model_len']) if (_kept := names._results) is None else _kept['kv.tokens_low GtE serving.max_model_len'] if 'kv.tokens_low GtE serving.max_model_len' in _kept else _kept.setdefault('kv.tokens_low GtE serving.max_model_len', (names['kv.tokens_low'] >= names['serving.max_model_len'])))", {}, ('kv.tokens_low', 'serving.max_model_len'), None),
    ('model.attention_heads % parallel.tensor == 0', frozenset(())):
        ("lambda names, functions, params: (_f1(names['model.attention_heads'], names['parallel.tensor']) == 0)", {'_f1': OPERATORS[ast.Mod]}, ('model.attention_heads', 'parallel.tensor'), None),
    ('model.attention_heads % parallel.tensor == 0 and (model.kv_heads % parallel.tensor == 0 or parallel.tensor % model.kv_heads == 0)', frozenset(())):
        ("lambda names, functions, params: ((_f1(names['model.attention_heads'], names['parallel.tensor']) == 0) and ((_f2(names['model.kv_heads'], names['parallel.tensor']) == 0) or (_f3(names['parallel.tensor'], names['model.kv_heads']) == 0)))", {'_f1': OPERATORS[ast.Mod], '_f2': OPERATORS[ast.Mod], '_f3': OPERATORS[ast.Mod]}, ('model.attention_heads', 'parallel.tensor'), None),
    ('model.attention_heads > 0', frozenset(())):
        ("lambda names, functions, params: (_v1._magnitude > 0 if type(_v1 := names['model.attention_heads']) is _Quantity and _v1._units._dimensions else _v1 > 0)", {}, ('model.attention_heads',), None),
    ('model.block_misfit == 0', frozenset(())):
        ("lambda names, functions, params: (names['model.block_misfit'] == 0)", {}, ('model.block_misfit',), None),
    ('model.dtype_requested == "float16" and model.model_type in ("gemma2", "gemma3", "gemma3_text", "glm4")', frozenset(())):
        ("lambda names, functions, params: ((names['model.dtype_requested'] == 'float16') and (names['model.model_type'] in _c1))", {'_c1': ('gemma2', 'gemma3', 'gemma3_text', 'glm4', )}, ('model.dtype_requested',), None),
    ('model.experts > 0', frozenset(())):
        ("lambda names, functions, params: (_v1._magnitude > 0 if type(_v1 := names['model.experts']) is _Quantity and _v1._units._dimensions else _v1 > 0)", {}, ('model.experts',), None),
    ('model.kv_heads % parallel.tensor == 0 or parallel.tensor % model.kv_heads == 0', frozenset(())):
        ("lambda names, functions, params: ((_f1(names['model.kv_heads'], names['parallel.tensor']) == 0) or (_f2(names['parallel.tensor'], names['model.kv_heads']) == 0))", {'_f1': OPERATORS[ast.Mod], '_f2': OPERATORS[ast.Mod]}, ('model.kv_heads', 'parallel.tensor'), None),
    ('model.max_length == 0 or serving.max_model_len >= model.max_length or kv.tokens > serving.max_model_len', frozenset(())):
        ("lambda names, functions, params: ((names['model.max_length'] == 0) or ((names['serving.max_model_len'] >= names['model.max_length']) if (_kept := names._results) is None else _kept['serving.max_model_len GtE model.max_length'] if 'serving.max_model_len GtE model.max_length' in _kept else _kept.setdefault('serving.max_model_len GtE model.max_length', (names['serving.max_model_len'] >= names['model.max_length']))) or ((names['kv.tokens'] > names['serving.max_model_len']) if (_kept := names._results) is None else _kept['kv.tokens Gt serving.max_model_len'] if 'kv.tokens Gt serving.max_model_len' in _kept else _kept.setdefault('kv.tokens Gt serving.max_model_len', (names['kv.tokens'] > names['serving.max_model_len']))))", {}, ('model.max_length',), None),
    ('model.quantization == "fp8" and gpu.compute_capability >= 8.0', frozenset(())):
        ("lambda names, functions, params: ((names['model.quantization'] == 'fp8') and (names['gpu.compute_capability'] >= 8.0))", {}, ('model.quantization',), None),
    ('model.quantization_method == model.checkpoint_quantization or (model.checkpoint_quantization == "gptq" and model.quantization_method == "gptq_marlin") or (model.checkpoint_quantization == "awq" and model.quantization_method == "awq_marlin")', frozenset(())):
        ("lambda names, functions, params: (((names['model.quantization_method'] == names['model.checkpoint_quantization']) if (_kept := names._results) is None else _kept['model.quantization_method Eq model.checkpoint_quantization'] if 'model.quantization_method Eq model.checkpoint_quantization' in _kept else _kept.setdefault('model.quantization_method Eq model.checkpoint_quantization', (names['model.quantization_method'] == names['model.checkpoint_quantization']))) or ((names['model.checkpoint_quantization'] == 'gptq') and (names['model.quantization_method'] == 'gptq_marlin')) or ((names['model.checkpoint_quantization'] == 'awq') and (names['model.quantization_method'] == 'awq_marlin')))", {}, ('model.quantization_method', 'model.checkpoint_quantization'), None),
    ('model.weight_block > 0 and parallel.tensor > 1', frozenset(())):
        ("lambda names, functions, params: ((_v1._magnitude > 0 if type(_v1 := names['model.weight_block']) is _Quantity and _v1._units._dimensions else _v1 > 0) and (names['parallel.tensor'] > 1))", {}, ('model.weight_block',), None),
    ('not model.mla and model.kv_heads > 0 and model.attention_heads % parallel.tensor == 0', frozenset(())):
        ("lambda names, functions, params: ((not names['model.mla']) and (_v1._magnitude > 0 if type(_v1 := names['model.kv_heads']) is _Quantity and _v1._units._dimensions else _v1 > 0) and (_f2(names['model.attention_heads'], names['parallel.tensor']) == 0))", {'_f2': OPERATORS[ast.Mod]}, ('model.mla',), None),
    ('not model.mla and not parallel.dp_attention and model.attention_heads > 0 and model.kv_heads > 0', frozenset(())):
        ("lambda names, functions, params: ((not names['model.mla']) and (not names['parallel.dp_attention']) and (_v1._magnitude > 0 if type(_v1 := names['model.attention_heads']) is _Quantity and _v1._units._dimensions else _v1 > 0) and (_v2._magnitude > 0 if type(_v2 := names['model.kv_heads']) is _Quantity and _v2._units._dimensions else _v2 > 0))", {}, ('model.mla',), None),
    ('not serving.legacy_engine and serving.full_cuda_graphs and weights.total <= gpu.usable and kv.state_blocks_high > 0 and kv.tokens_high >= serving.max_model_len', frozenset(())):
        ("lambda names, functions, params: ((not names['serving.legacy_engine']) and names['serving.full_cuda_graphs'] and ((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable']))) and (_v1._magnitude > 0 if type(_v1 := names['kv.state_blocks_high']) is _Quantity and _v1._units._dimensions else _v1 > 0) and ((names['kv.tokens_high'] >= names['serving.max_model_len']) if (_kept := names._results) is None else _kept['kv.tokens_high GtE serving.max_model_len'] if 'kv.tokens_high GtE serving.max_model_len' in _kept else _kept.setdefault('kv.tokens_high GtE serving.max_model_len', (names['kv.tokens_high'] >= names['serving.max_model_len']))))", {}, ('serving.legacy_engine',), None),
    ('not tradeoff().changes or (tradeoff().current_starts and tradeoff().gain < 1 + min_gain)', frozenset(('acceptance_draft_model', 'acceptance_eagle', 'acceptance_eagle3', 'acceptance_early_exit', 'acceptance_lookahead', 'acceptance_medusa', 'acceptance_mtp', 'acceptance_ngram', 'allreduce_latency', 'eagle3_draft_vocab', 'host_link_gb_per_s', 'min_gain', 'pass_overhead', 'tight_sequences'))):
        ("lambda names, functions, params: ((not _attribute(_function(functions, 'tradeoff', False)(), 'changes', _expression)) or (_attribute(_function(functions, 'tradeoff', False)(), 'current_starts', _expression) and (_attribute(_function(functions, 'tradeoff', False)(), 'gain', _expression) < _f1(1, params['min_gain']))))", {'_f1': OPERATORS[ast.Add]}, (), None),
    ('not tradeoff().current_starts or not tradeoff().current.estimated or tradeoff().current.speedup >= min_speedup', frozenset(('min_speedup',))):
        ("lambda names, functions, params: ((not _attribute(_function(functions, 'tradeoff', False)(), 'current_starts', _expression)) or (not _attribute(_attribute(_function(functions, 'tradeoff', False)(), 'current', _expression), 'estimated', _expression)) or (_attribute(_attribute(_function(functions, 'tradeoff', False)(), 'current', _expression), 'speedup', _expression) >= params['min_speedup']))", {}, (), None),
    ('parallel.expert and model.parameters > 0', frozenset(())):
        ("lambda names, functions, params: (names['parallel.expert'] and (_v1._magnitude > 0 if type(_v1 := names['model.parameters']) is _Quantity and _v1._units._dimensions else _v1 > 0))", {}, ('parallel.expert',), 'parallel.expert'),
    ('serving.block_size in (1, 8, 16, 32, 64, 128, 256)', frozenset(())):
        ("lambda names, functions, params: (names['serving.block_size'] in _c1)", {'_c1': (1, 8, 16, 32, 64, 128, 256, )}, ('serving.block_size',), None),
    ('serving.block_size_set', frozenset(())):
        ("lambda names, functions, params: names['serving.block_size_set']", {}, ('serving.block_size_set',), 'serving.block_size_set'),
    ('serving.kv_cache_memory_bytes > 0', frozenset(())):
        ("lambda names, functions, params: (_v1._magnitude > 0 if type(_v1 := names['serving.kv_cache_memory_bytes']) is _Quantity and _v1._units._dimensions else _v1 > 0)", {}, ('serving.kv_cache_memory_bytes',), None),
    ('serving.kv_cache_memory_bytes > 0 and weights.total + serving.kv_cache_memory_bytes <= gpu.total', frozenset(())):
        ("lambda names, functions, params: ((_v1._magnitude > 0 if type(_v1 := names['serving.kv_cache_memory_bytes']) is _Quantity and _v1._units._dimensions else _v1 > 0) and (_f2(names['weights.total'], names['serving.kv_cache_memory_bytes']) <= names['gpu.total']))", {'_f2': OPERATORS[ast.Add]}, ('serving.kv_cache_memory_bytes',), None),
    ('serving.max_input_tokens < serving.max_model_len', frozenset(())):
        ("lambda names, functions, params: ((names['serving.max_input_tokens'] < names['serving.max_model_len']) if (_kept := names._results) is None else _kept['serving.max_input_tokens Lt serving.max_model_len'] if 'serving.max_input_tokens Lt serving.max_model_len' in _kept else _kept.setdefault('serving.max_input_tokens Lt serving.max_model_len', (names['serving.max_input_tokens'] < names['serving.max_model_len'])))", {}, ('serving.max_input_tokens', 'serving.max_model_len'), None),
    ('serving.max_input_tokens_set and serving.max_model_len_set', frozenset(())):
        ("lambda names, functions, params: (names['serving.max_input_tokens_set'] and names['serving.max_model_len_set'])", {}, ('serving.max_input_tokens_set',), 'serving.max_input_tokens_set'),
    ('serving.max_model_len <= model.max_length', frozenset(())):
        ("lambda names, functions, params: ((names['serving.max_model_len'] <= names['model.max_length']) if (_kept := names._results) is None else _kept['serving.max_model_len LtE model.max_length'] if 'serving.max_model_len LtE model.max_length' in _kept else _kept.setdefault('serving.max_model_len LtE model.max_length', (names['serving.max_model_len'] <= names['model.max_length'])))", {}, ('serving.max_model_len', 'model.max_length'), None),
    ('serving.max_model_len <= model.max_length_sglang', frozenset(())):
        ("lambda names, functions, params: ((names['serving.max_model_len'] <= names['model.max_length_sglang']) if (_kept := names._results) is None else _kept['serving.max_model_len LtE model.max_length_sglang'] if 'serving.max_model_len LtE model.max_length_sglang' in _kept else _kept.setdefault('serving.max_model_len LtE model.max_length_sglang', (names['serving.max_model_len'] <= names['model.max_length_sglang'])))", {}, ('serving.max_model_len', 'model.max_length_sglang'), None),
    ('serving.max_model_len <= serving.kv_cache_max_tokens', frozenset(())):
        ("lambda names, functions, params: ((names['serving.max_model_len'] <= names['serving.kv_cache_max_tokens']) if (_kept := names._results) is None else _kept['serving.max_model_len LtE serving.kv_cache_max_tokens'] if 'serving.max_model_len LtE serving.kv_cache_max_tokens' in _kept else _kept.setdefault('serving.max_model_len LtE serving.kv_cache_max_tokens', (names['serving.max_model_len'] <= names['serving.kv_cache_max_tokens'])))", {}, ('serving.max_model_len', 'serving.kv_cache_max_tokens'), None),
    ('serving.max_model_len_auto and weights.total <= gpu.usable and kv.tokens > 0', frozenset(())):
        ("lambda names, functions, params: (names['serving.max_model_len_auto'] and ((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable']))) and (_v1._magnitude > 0 if type(_v1 := names['kv.tokens']) is _Quantity and _v1._units._dimensions else _v1 > 0))", {}, ('serving.max_model_len_auto',), 'serving.max_model_len_auto'),
    ('serving.max_model_len_set and model.max_length > 0 and not serving.allow_long_max_model_len and not serving.model_overrides', frozenset(())):
        ("lambda names, functions, params: (names['serving.max_model_len_set'] and (_v1._magnitude > 0 if type(_v1 := names['model.max_length']) is _Quantity and _v1._units._dimensions else _v1 > 0) and (not names['serving.allow_long_max_model_len']) and (not names['serving.model_overrides']))", {}, ('serving.max_model_len_set',), 'serving.max_model_len_set'),
    ('serving.max_model_len_set and model.max_length_sglang > 0 and not serving.allow_long_max_model_len and not serving.model_overrides', frozenset(())):
        ("lambda names, functions, params: (names['serving.max_model_len_set'] and (_v1._magnitude > 0 if type(_v1 := names['model.max_length_sglang']) is _Quantity and _v1._units._dimensions else _v1 > 0) and (not names['serving.allow_long_max_model_len']) and (not names['serving.model_overrides']))", {}, ('serving.max_model_len_set',), 'serving.max_model_len_set'),
    ('serving.max_model_len_set and serving.kv_cache_max_tokens > 0', frozenset(())):
        ("lambda names, functions, params: (names['serving.max_model_len_set'] and (_v1._magnitude > 0 if type(_v1 := names['serving.kv_cache_max_tokens']) is _Quantity and _v1._units._dimensions else _v1 > 0))", {}, ('serving.max_model_len_set',), 'serving.max_model_len_set'),
    ('serving.max_model_len_set and weights.total <= gpu.usable', frozenset(())):
        ("lambda names, functions, params: (names['serving.max_model_len_set'] and ((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable']))))", {}, ('serving.max_model_len_set',), 'serving.max_model_len_set'),
    ('serving.max_model_len_set and weights.total <= gpu.usable and kv.tokens_high > 0', frozenset(())):
        ("lambda names, functions, params: (names['serving.max_model_len_set'] and ((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable']))) and (_v1._magnitude > 0 if type(_v1 := names['kv.tokens_high']) is _Quantity and _v1._units._dimensions else _v1 > 0))", {}, ('serving.max_model_len_set',), 'serving.max_model_len_set'),
    ('serving.max_model_len_suffixed', frozenset(('token',))):
        ("lambda names, functions, params: names['serving.max_model_len_suffixed']", {}, ('serving.max_model_len_suffixed',), 'serving.max_model_len_suffixed'),
    ('serving.max_num_batched_tokens * token >= serving.max_model_len', frozenset(('token', 'v0_chunked_prefill_above'))):
        ("lambda names, functions, params: (_f1(names['serving.max_num_batched_tokens'], params['token']) >= names['serving.max_model_len'])", {'_f1': OPERATORS[ast.Mult]}, ('serving.max_num_batched_tokens', 'serving.max_model_len'), None),
    ('serving.max_num_batched_tokens >= serving.max_num_seqs', frozenset(())):
        ("lambda names, functions, params: ((names['serving.max_num_batched_tokens'] >= names['serving.max_num_seqs']) if (_kept := names._results) is None else _kept['serving.max_num_batched_tokens GtE serving.max_num_seqs'] if 'serving.max_num_batched_tokens GtE serving.max_num_seqs' in _kept else _kept.setdefault('serving.max_num_batched_tokens GtE serving.max_num_seqs', (names['serving.max_num_batched_tokens'] >= names['serving.max_num_seqs'])))", {}, ('serving.max_num_batched_tokens', 'serving.max_num_seqs'), None),
    ('serving.max_num_batched_tokens_set and serving.max_model_len_set and ((serving.legacy_engine and (serving.chunked_prefill == "off" or (serving.chunked_prefill == "default" and serving.max_model_len <= v0_chunked_prefill_above))) or (not serving.legacy_engine and serving.chunked_prefill == "off" and engine_at_least("0.12")))', frozenset(('token', 'v0_chunked_prefill_above'))):
        ("lambda names, functions, params: (names['serving.max_num_batched_tokens_set'] and names['serving.max_model_len_set'] and ((names['serving.legacy_engine'] and ((names['serving.chunked_prefill'] == 'off') or ((names['serving.chunked_prefill'] == 'default') and (names['serving.max_model_len'] <= params['v0_chunked_prefill_above'])))) or ((not names['serving.legacy_engine']) and (names['serving.chunked_prefill'] == 'off') and _function(functions, 'engine_at_least', False)('0.12'))))", {}, ('serving.max_num_batched_tokens_set',), 'serving.max_num_batched_tokens_set'),
    ('serving.max_num_batched_tokens_set and serving.max_num_seqs_set', frozenset(())):
        ("lambda names, functions, params: (names['serving.max_num_batched_tokens_set'] and names['serving.max_num_seqs_set'])", {}, ('serving.max_num_batched_tokens_set',), 'serving.max_num_batched_tokens_set'),
    ('serving.max_num_batched_tokens_suffixed', frozenset(())):
        ("lambda names, functions, params: names['serving.max_num_batched_tokens_suffixed']", {}, ('serving.max_num_batched_tokens_suffixed',), 'serving.max_num_batched_tokens_suffixed'),
    ('speculative.method == "eagle3" and model.model_type != ""', frozenset(())):
        ("lambda names, functions, params: ((names['speculative.method'] == 'eagle3') and (names['model.model_type'] != ''))", {}, ('speculative.method',), None),
    ('speculative.method == "mtp" and model.mtp_layers == 0 and model.model_type in ("llama", "mistral", "mixtral", "qwen2", "qwen3", "qwen3_moe", "gemma", "gemma2", "gemma3", "gemma3_text", "phi3", "granite")', frozenset(())):
        ("lambda names, functions, params: ((names['speculative.method'] == 'mtp') and (names['model.mtp_layers'] == 0) and (names['model.model_type'] in _c1))", {'_c1': ('llama', 'mistral', 'mixtral', 'qwen2', 'qwen3', 'qwen3_moe', 'gemma', 'gemma2', 'gemma3', 'gemma3_text', 'phi3', 'granite', )}, ('speculative.method',), None),
    ('speculative.n_predict > 0', frozenset(())):
        ("lambda names, functions, params: (_v1._magnitude > 0 if type(_v1 := names['speculative.n_predict']) is _Quantity and _v1._units._dimensions else _v1 > 0)", {}, ('speculative.n_predict',), None),
    ('speculative.tokens_supported', frozenset(())):
        ("lambda names, functions, params: names['speculative.tokens_supported']", {}, ('speculative.tokens_supported',), 'speculative.tokens_supported'),
    ('weights.total + serving.kv_cache_memory_bytes <= gpu.total', frozenset(())):
        ("lambda names, functions, params: (_f1(names['weights.total'], names['serving.kv_cache_memory_bytes']) <= names['gpu.total'])", {'_f1': OPERATORS[ast.Add]}, ('weights.total', 'serving.kv_cache_memory_bytes', 'gpu.total'), None),
    ('weights.total <= gpu.usable', frozenset(())):
        ("lambda names, functions, params: ((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable'])))", {}, ('weights.total', 'gpu.usable'), None),
    ('weights.total <= gpu.usable and (serving.engine != "trtllm" or kv.tokens_high <= 0)', frozenset(())):
        ("lambda names, functions, params: (((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable']))) and ((names['serving.engine'] != 'trtllm') or (_v1._magnitude <= 0 if type(_v1 := names['kv.tokens_high']) is _Quantity and _v1._units._dimensions else _v1 <= 0)))", {}, ('weights.total', 'gpu.usable'), None),
    ('weights.total <= gpu.usable and kv.tokens_high >= serving.max_model_len and (serving.max_model_len_set or serving.engine != "tgi" or not engine_at_least("3.0")) and not serving.max_model_len_auto', frozenset(())):
        ("lambda names, functions, params: (((names['weights.total'] <= names['gpu.usable']) if (_kept := names._results) is None else _kept['weights.total LtE gpu.usable'] if 'weights.total LtE gpu.usable' in _kept else _kept.setdefault('weights.total LtE gpu.usable', (names['weights.total'] <= names['gpu.usable']))) and ((names['kv.tokens_high'] >= names['serving.max_model_len']) if (_kept := names._results) is None else _kept['kv.tokens_high GtE serving.max_model_len'] if 'kv.tokens_high GtE serving.max_model_len' in _kept else _kept.setdefault('kv.tokens_high GtE serving.max_model_len', (names['kv.tokens_high'] >= names['serving.max_model_len']))) and (names['serving.max_model_len_set'] or (names['serving.engine'] != 'tgi') or (not _function(functions, 'engine_at_least', False)('3.0'))) and (not names['serving.max_model_len_auto']))", {}, ('weights.total', 'gpu.usable'), None),
}
