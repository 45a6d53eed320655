"""About's introduction: where to start, naming every tab the app has, in each language."""

from __future__ import annotations

import pytest

from playground import messages
from playground.server.ui import about_tab
from playground.server.ui.tabs import tab_modules
from playground.server.ui.translations import UI_KEYS, text


@pytest.mark.parametrize("language", messages.LANGUAGES)
def test_about_names_every_tab_the_app_has(language):
    """The tabs as the app finds them (tabs.py), not a list of our own: a new tab that About leaves out fails."""
    intro = text("pg.about.intro", language)
    tabs = [module.TAB for module in tab_modules() if module.TAB != about_tab.TAB]
    assert len(tabs) >= 8
    named = {tab.id: text(tab.title, language) if tab.title in UI_KEYS else tab.title for tab in tabs}
    missing = [tab_id for tab_id, title in named.items() if f"**{title}**" not in intro]
    assert missing == [], f"About ({language}) does not name the tabs {missing}"
