"""The physics: the article's formulas, the model and GPU catalogs and the article's machines. Pure data and numpy."""
