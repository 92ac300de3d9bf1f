"""The customizer page (`squadron-cad serve`): a local server, its page and its builds."""


class BadRequest(Exception):
    """A request no page of ours sends (a wrong type, an unknown kit): HTTP 400."""
