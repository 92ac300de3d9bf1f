"""The pipeline: one build context (kit, parameters, design, options) travels from the
command to the outputs, through these rooms:

- context: the build context (kit, parameters, design, options), made once by the command;
- options, report: the light model the CLI reads without the meshing libraries (the
  build's options and key; the report a build or an unchanged kit's manifest gives);
- transaction: `build`, staged and swapped in whole; parts: which parts a build covers;
- rendering: emit, render (cached, parallel), each part's mesh checks;
- stages: everything after the renders (layout, kit checks, plates, slicer, pictures, BOM);
  clock: the stage clock and the work that runs beside the stages;
- kit_checks: the checks between parts and the rules' invariants, one cached path for
  `build` and `check`; verify: the `check` command; refusals: what a build will not do to
  a folder; pictures: redrawing a kit's previews and the docs.
"""
