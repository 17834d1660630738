#pragma once
// Compares a rendered panel image with a baseline PNG under a tolerance.
// A missing baseline is a failure that writes the image as a candidate for a
// person to review and copy into tests/baselines/.
#include <QImage>
#include <QString>

#include <ostream>

// Readable QStrings in GoogleTest failure messages.
inline void PrintTo(const QString& s, std::ostream* os) { *os << '"' << s.toStdString() << '"'; }

namespace sinkscope::test {

struct RenderTolerance {
  int channelDelta = 24;             // a pixel differs when a channel differs by more
  double maxDifferingShare = 0.005;  // share of differing pixels allowed
};

struct RenderComparison {
  bool passed = false;
  QString message;  // why it failed, or a summary
  double differingShare = 0.0;
  QString candidatePath;  // written when the baseline is missing or differs
};

RenderComparison render_compare(const QImage& actual, const QString& baselinePath,
                                const QString& candidateDir, const RenderTolerance& tolerance = {});

// Whether the image (or the given region of it) has more than one colour and
// is not all black: a panel that rendered nothing fails this.
bool image_has_content(const QImage& image, int minDistinctColours = 8);

}  // namespace sinkscope::test
