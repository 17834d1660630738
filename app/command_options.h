#pragma once
// What `sinkscope`, `sinkscope figure` and `sinkscope figure-set` read from
// their command lines alike: bounded numbers, heads, and the figure size
// presets by name.
#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QString>

#include "render/panel_export.h"

namespace sinkscope::app {

// A command-line mistake: the message (exit status 2).
struct BadCommandLine {
  QString message;
};

// The option's value, a number (a whole number) from lo to hi; throws BadCommandLine naming it.
double real_option(const QCommandLineParser& parser, const QCommandLineOption& option, double lo,
                   double hi);
int int_option(const QCommandLineParser& parser, const QCommandLineOption& option, int lo, int hi);
// A head: "avg" (SelectionModel::kHeadAverage) or a whole number from 0 to hi.
int head_option(const QCommandLineParser& parser, const QCommandLineOption& option, int hi);
// one-column, two-columns, slide or screen at `dpi`; throws BadCommandLine for another name.
render::FigureOptions preset_named(const QString& name, int dpi);

}  // namespace sinkscope::app
