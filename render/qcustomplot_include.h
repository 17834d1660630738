#pragma once
// qcustomplot.h uses Qt's `signals` and `foreach` keywords, which the project
// switches off (QT_NO_KEYWORDS: they break ATen headers). Include it through
// this header, which maps them onto Q_SIGNALS/Q_FOREACH for its duration.
#include <QtGlobal>

#define signals Q_SIGNALS
#define slots Q_SLOTS
#define emit Q_EMIT
#define foreach Q_FOREACH
#include <qcustomplot.h>
#undef signals
#undef slots
#undef emit
#undef foreach
