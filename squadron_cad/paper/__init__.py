"""The paper edition engine: sheets a kit declares -> a vector PDF, SVGs and PNG previews.

It knows pages, drawings, tiling, scale bars and file formats, never a game or a part:
a kit hands it a `PaperKit` (squadron_cad.paper.sheet) and gets back what was written.
"""
