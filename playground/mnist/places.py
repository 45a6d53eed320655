"""Where the datasets are and come from: the cache, a user's own folder per dataset, the mirrors to download from.

A value, read once from the settings (``MNIST_DIR``, ``FASHION_MNIST_DIR``,
``PLAYGROUND_CACHE``, ``PLAYGROUND_MIRRORS_<NAME>``: server/config.py) and
handed to fetch.py and load.py; the device owner gets it as a message.

    >>> from playground.mnist.catalogue import DATASETS
    >>> places = DataPlaces(Path("/home/ada/.cache/jax-playground"), {"mnist": Path("/data/mnist")})
    >>> places.folder(DATASETS["mnist"]).name, places.folder(DATASETS["fashion_mnist"])
    ('mnist', None)
    >>> DataPlaces.from_dict(places.to_dict()) == places
    True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from playground.mnist.catalogue import DatasetSpec


@dataclass(frozen=True)
class DataPlaces:
    # The dicts are left out of the hash (Settings, which holds this, stays hashable); equal places still hash alike.
    cache: Path  # the cache root; each dataset gets a subfolder
    folders: dict[str, Path] = field(default_factory=dict, hash=False)  # dataset name -> its folder_variable's folder
    mirrors: dict[str, tuple[str, ...]] = field(default_factory=dict, hash=False)  # name -> base URLs ending in "/"

    def folder(self, spec: DatasetSpec) -> Path | None:
        """The folder of ``spec``'s files a user named, or None (the cache, or a download, then)."""
        return self.folders.get(spec.name)

    def mirrors_for(self, spec: DatasetSpec) -> tuple[str, ...]:
        """The mirrors named for ``spec`` (a classroom's own), else its published ones."""
        return self.mirrors.get(spec.name) or spec.mirrors

    def read_from(self) -> list[str]:
        """The folders a dataset is read from: the users' folders and the cache root."""
        return [*map(str, self.folders.values()), str(self.cache)]

    def to_dict(self) -> dict:
        return {"cache": str(self.cache), "folders": {name: str(path) for name, path in self.folders.items()},
                "mirrors": {name: list(bases) for name, bases in self.mirrors.items()}}

    @classmethod
    def from_dict(cls, sent: dict) -> DataPlaces:
        return cls(Path(sent["cache"]), {name: Path(path) for name, path in sent["folders"].items()},
                   {name: tuple(bases) for name, bases in sent["mirrors"].items()})
