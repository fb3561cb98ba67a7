"""Graph analytics of an atlas (spec §2.13): entity communities, paragraph clusters,
Adamic–Adar link prediction and knowledge gaps, computed by well-kept libraries
(networkx, scikit-learn, scipy), stored in the atlas and versioned against it.

`run.analyze` computes and stores them; `lookup.Analytics` reads them back for
retrieval, the widgets and `ohara entities show`.
"""
