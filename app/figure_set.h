#pragma once
// `sinkscope figure-set` (and `sinkscope-cli figure-set`, which runs it): the
// figure kinds of the seed papers for a sentence file, each as PDF with the
// CSV of its numbers (the numbers: models/document/figure_set_data.h).
// No display is needed (Qt's offscreen platform).
namespace sinkscope::app {

// argv[0] is "figure-set". 0: written; 1: a run failed; 2: bad command line or input.
int figure_set_command(int argc, char** argv);
// `sinkscope paper`: the figure set, its report.pdf and atlas.csv (argv[0] is "paper").
int paper_command(int argc, char** argv);

}  // namespace sinkscope::app
