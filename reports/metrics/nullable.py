"""How report JSON carries a value that may be undefined."""


def put_value(target, key, value, reason=None):
    """Set ``target[key]``; an undefined (None) value gets a sibling ``"<key>_reason"``."""
    target[key] = value
    if value is None:
        target[f"{key}_reason"] = reason or "undefined"
    return target
