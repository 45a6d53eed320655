"""The reader's language, from the request's Accept-Language header: en, de or zh (playground/messages)."""

from __future__ import annotations

import gradio as gr

from playground import messages


def of(request: gr.Request | None) -> str:
    """``messages.choose`` of the request's Accept-Language; English without a request (API calls, tests)."""
    headers = getattr(request, "headers", None)
    return messages.choose(headers.get("accept-language") if headers is not None else None)
