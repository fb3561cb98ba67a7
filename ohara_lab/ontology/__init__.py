"""SUMO ontology: class index, hierarchy, 3D-map categories and the offline tagger.

The derived files are built from SUMO.owl and WordNet 3.0 by
`ohara_lab.ontology.build.build_ontology` (``ohara ontology build --owl …``) and
shipped as package data; `load_ontology()` reads them once per process.
"""

from .model import Ontology, load_ontology
from .resolve import TagResolution

__all__ = ["Ontology", "TagResolution", "load_ontology"]
