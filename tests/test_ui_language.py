"""playground.server.ui.language: the page's language cookie first, then Accept-Language, English without a request."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from playground.server.ui import language


def request(**headers):
    return SimpleNamespace(headers={k.replace("_", "-"): v for k, v in headers.items()})


@pytest.mark.parametrize("headers, expected", [
    ({}, "en"),
    ({"accept_language": "de-DE,de;q=0.9"}, "de"),
    ({"accept_language": "de-DE", "cookie": "pg_lang=zh-CN"}, "zh"),  # switched in Settings: the page's wins
    ({"accept_language": "zh-CN", "cookie": "other=1; pg_lang=en"}, "en"),
    ({"accept_language": "de", "cookie": "pg_lang="}, "de"),  # an empty cookie is no choice
    ({"accept_language": "de", "cookie": "pg_lang=xx-YY"}, "en"),  # a language we do not write: English
    ({"accept_language": "de", "cookie": "\x00garbage;;=;pg_lang"}, "de"),  # unreadable: Accept-Language
])
def test_the_readers_language(headers, expected):
    assert language.of(request(**headers)) == expected


def test_no_request_is_english():
    assert language.of(None) == "en"


def test_the_page_script_keeps_html_lang_in_the_cookie_and_a_pick_for_the_next_load():
    # What it does in a page: tests/browser/test_languages.py (a pick in Settings holds after a reload).
    assert "const html = document.documentElement;" in language.PAGE_LANGUAGE_JS
    assert "pg_lang=" in language.PAGE_LANGUAGE_JS and "SameSite=Lax" in language.PAGE_LANGUAGE_JS
    assert 'localStorage.setItem("pg_lang_picked"' in language.PAGE_LANGUAGE_JS
    assert ".changeLocale(picked)" in language.PAGE_LANGUAGE_JS
