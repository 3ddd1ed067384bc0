"""Kubernetes strategic-merge patches on a document whose every value carries the span it is
reported at (json_patch.Located), as kustomize applies them to an overlay's bases.

The semantics (https://github.com/kubernetes/community/blob/master/contributors/devel/sig-api-
machinery/strategic-merge-patch.md): mappings merge key by key, a ``null`` removes the key; a
list of mappings whose field type declares a merge key merges element by element on that key
(a pod's ``containers`` by ``name``, a container's ``volumeMounts`` by ``mountPath``); any other
list is replaced whole (a container's ``args``). Directives: ``$patch: delete`` removes an
element or a mapping, ``$patch: replace`` replaces a mapping or list instead of merging it,
``$deleteFromPrimitiveList/<field>`` removes values from a list of scalars; ``$setElementOrder``
and ``$retainKeys`` only order or prune what hbmlint does not read and are skipped.

For kinds without a published schema (CRDs) kustomize (kyaml) merges a list of mappings on the
first of the keys it knows that every element carries; the same keys are used here for every
kind, which gives the declared merge key for the fields a budget reads.
"""

from __future__ import annotations

import copy

from .json_patch import Located, NotRead

# kyaml's associative keys, in the order it tries them (sigs.k8s.io/kustomize/kyaml/yaml
# AssociativeSequenceKeys), plus the declared merge keys of core fields a pod spec holds:
# ports by containerPort, hostAliases by ip, Service ports by port
_MERGE_KEYS = ("mountPath", "devicePath", "ip", "type", "topologyKey", "name", "containerPort")
_DELETE_FROM = "$deleteFromPrimitiveList/"
_DEPTH = 200


def merge(target: Located, patch: Located, depth: int = 0) -> None:
    """Apply ``patch`` (a mapping) to ``target`` (a mapping) in place."""
    if depth > _DEPTH:
        raise NotRead("a patch nested too deep")
    if not isinstance(target.value, dict) or not isinstance(patch.value, dict):
        raise NotRead("a strategic-merge patch that is not a mapping")
    members = target.value
    for key, change in patch.value.items():
        if not isinstance(key, str):
            key = str(key)
        if key.startswith(_DELETE_FROM):
            field = key[len(_DELETE_FROM) :]
            held = members.get(field)
            if held is not None and isinstance(held.value, list) and isinstance(change.value, list):
                drop = {_plain(c) for c in change.value}
                held.value = [m for m in held.value if _plain(m) not in drop]
            continue
        if key.startswith("$"):
            continue  # $setElementOrder/..., $retainKeys, $patch at this level: handled above
        if change.value is None:
            members.pop(key, None)
            continue
        held = members.get(key)
        if held is None:
            members[key] = _cleaned(change)
        elif isinstance(change.value, dict) and isinstance(held.value, dict):
            directive = change.value.get("$patch")
            if directive is not None and directive.value == "delete":
                del members[key]
            elif directive is not None and directive.value == "replace":
                members[key] = _cleaned(change)
            else:
                merge(held, change, depth + 1)
        elif isinstance(change.value, list) and isinstance(held.value, list):
            members[key] = _merged_list(held, change, depth)
        else:
            members[key] = _cleaned(change)


def _merged_list(held: Located, change: Located, depth: int) -> Located:
    items = change.value
    if any(_directive(item) == "replace" for item in items):
        return Located([_cleaned(i) for i in items if _directive(i) != "replace"], change.span)
    key = _merge_key(held.value, items)
    if key is None:
        return _cleaned(change)  # scalars or mappings without a common key: replaced whole
    result = list(held.value)
    for item in items:
        wanted = item.value.get(key)
        at = next(
            (i for i, m in enumerate(result) if _plain(m.value.get(key)) == _plain(wanted)), None
        )
        if _directive(item) == "delete":
            if at is not None:
                del result[at]
        elif at is None:
            result.append(_cleaned(item))
        else:
            merge(result[at], item, depth + 1)
    return Located(result, held.span)


def _merge_key(held: list[Located], items: list[Located]) -> str | None:
    """The key both lists' mappings all carry (deleted elements may carry only it)."""
    every = held + items
    if not every or not all(isinstance(m.value, dict) for m in every):
        return None
    for key in _MERGE_KEYS:
        if all(key in m.value for m in every):
            return key
    return None


def _directive(item: Located) -> str | None:
    if isinstance(item.value, dict) and "$patch" in item.value:
        return str(item.value["$patch"].value)
    return None


def _cleaned(tree: Located) -> Located:
    """A patch's value as it lands: without its directives."""
    if isinstance(tree.value, dict):
        return Located(
            {
                k: _cleaned(v)
                for k, v in tree.value.items()
                if not (isinstance(k, str) and k.startswith("$"))
            },
            tree.span,
        )
    if isinstance(tree.value, list):
        return Located([_cleaned(v) for v in tree.value if _directive(v) is None], tree.span)
    return Located(copy.deepcopy(tree.value), tree.span)


def _plain(value: object) -> object:
    if isinstance(value, Located):
        value = value.value
    if isinstance(value, dict):
        return tuple(sorted((str(k), _plain(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_plain(v) for v in value)
    return value
