#include "support/render_compare.h"

#include <QDir>
#include <QFileInfo>
#include <QSet>
#include <cstdlib>

namespace sinkscope::test {

namespace {
QString write_candidate(const QImage& image, const QString& baselinePath, const QString& dir,
                        const QString& suffix) {
  QDir().mkpath(dir);
  const QString path = QDir(dir).filePath(QFileInfo(baselinePath).completeBaseName() + suffix +
                                          QStringLiteral(".png"));
  image.save(path, "PNG");
  return path;
}
}  // namespace

RenderComparison render_compare(const QImage& actualIn, const QString& baselinePath,
                                const QString& candidateDir, const RenderTolerance& tolerance) {
  RenderComparison r;
  const QImage actual = actualIn.convertToFormat(QImage::Format_RGB32);
  if (actual.isNull()) {
    r.message = QStringLiteral("the rendered image is empty");
    return r;
  }
  if (!QFileInfo::exists(baselinePath)) {
    r.candidatePath = write_candidate(actual, baselinePath, candidateDir, QString());
    r.message = QStringLiteral(
                    "no baseline %1; wrote candidate %2: look at it and, if it is right, "
                    "copy it to the baseline path")
                    .arg(baselinePath, r.candidatePath);
    return r;
  }
  const QImage baseline = QImage(baselinePath).convertToFormat(QImage::Format_RGB32);
  if (baseline.size() != actual.size()) {
    r.candidatePath =
        write_candidate(actual, baselinePath, candidateDir, QStringLiteral(".actual"));
    r.message = QStringLiteral("size %1x%2 differs from baseline %3 (%4x%5); actual image: %6")
                    .arg(actual.width())
                    .arg(actual.height())
                    .arg(baselinePath)
                    .arg(baseline.width())
                    .arg(baseline.height())
                    .arg(r.candidatePath);
    return r;
  }
  QImage diff(actual.size(), QImage::Format_RGB32);
  diff.fill(Qt::white);
  long long differing = 0;
  for (int y = 0; y < actual.height(); ++y) {
    const auto* a = reinterpret_cast<const QRgb*>(actual.constScanLine(y));
    const auto* b = reinterpret_cast<const QRgb*>(baseline.constScanLine(y));
    for (int x = 0; x < actual.width(); ++x) {
      const int d =
          std::max({std::abs(qRed(a[x]) - qRed(b[x])), std::abs(qGreen(a[x]) - qGreen(b[x])),
                    std::abs(qBlue(a[x]) - qBlue(b[x]))});
      if (d > tolerance.channelDelta) {
        ++differing;
        diff.setPixel(x, y, qRgb(220, 0, 0));
      }
    }
  }
  r.differingShare =
      static_cast<double>(differing) / (static_cast<double>(actual.width()) * actual.height());
  r.passed = r.differingShare <= tolerance.maxDifferingShare;
  if (!r.passed) {
    r.candidatePath =
        write_candidate(actual, baselinePath, candidateDir, QStringLiteral(".actual"));
    const QString diffPath =
        write_candidate(diff, baselinePath, candidateDir, QStringLiteral(".diff"));
    r.message = QStringLiteral("%1% of pixels differ from %2 (allowed %3%); actual: %4, diff: %5")
                    .arg(100.0 * r.differingShare, 0, 'f', 3)
                    .arg(baselinePath)
                    .arg(100.0 * tolerance.maxDifferingShare, 0, 'f', 3)
                    .arg(r.candidatePath, diffPath);
  } else {
    r.message = QStringLiteral("%1% of pixels differ").arg(100.0 * r.differingShare, 0, 'f', 3);
  }
  return r;
}

bool image_has_content(const QImage& imageIn, int minDistinctColours) {
  const QImage image = imageIn.convertToFormat(QImage::Format_RGB32);
  if (image.isNull()) return false;
  QSet<QRgb> colours;
  bool anyNonBlack = false;
  for (int y = 0; y < image.height(); y += 2) {
    const auto* row = reinterpret_cast<const QRgb*>(image.constScanLine(y));
    for (int x = 0; x < image.width(); x += 2) {
      const QRgb c = row[x] | 0xff000000u;
      colours.insert(c);
      anyNonBlack = anyNonBlack || (qRed(c) + qGreen(c) + qBlue(c) > 30);
    }
  }
  return anyNonBlack && colours.size() >= minDistinctColours;
}

}  // namespace sinkscope::test
