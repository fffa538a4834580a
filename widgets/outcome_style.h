#pragma once
// How outcomes and correctness look everywhere (timeline markers, table icons, details panel), and
// their translated names. One place, so the plot and the table always agree.
//
//   kept / baseline   green filled circle
//   reverted          grey hollow circle
//   failed            red cross
#include "session/experiment.h"

#include <QColor>
#include <QCoreApplication>
#include <QIcon>
#include <QString>

class QPainter;
class QPixmap;
class QPointF;

namespace ak {

enum class MarkerShape { FilledCircle, HollowCircle, Cross };

class OutcomeStyle {
    Q_DECLARE_TR_FUNCTIONS(OutcomeStyle)
public:
    static QColor color(Outcome outcome);
    static MarkerShape marker(Outcome outcome);
    static QColor correctnessColor(Correctness correctness);
    static QColor frontierColor();
    // The colour of the index-th kernel (in order of appearance): ten hues that stay apart on white.
    // The timeline's per-kernel running best and the roofline use the same ones.
    static QColor kernelColor(int index);
    static QColor selectionColor();
    // Background tints of a diff's inserted and deleted lines and of its hunk headers.
    static QColor insertedLineBackground();
    static QColor deletedLineBackground();
    static QColor hunkHeaderBackground();

    // Draws the outcome's marker centred on `center` with the given diameter in pixels.
    static void drawMarker(QPainter& painter, Outcome outcome, const QPointF& center, double diameter);
    // The marker as a transparent square pixmap of `diameter` pixels (needs a QGuiApplication).
    // TimelinePlot draws these (blitting a pixmap is far faster than stroking 10,000 shapes).
    static QPixmap markerPixmap(Outcome outcome, int diameter);
    // A small icon of the marker (cached; needs a QGuiApplication).
    static const QIcon& icon(Outcome outcome);

    // Translated names shown to the user.
    static QString outcomeName(Outcome outcome);
    static QString correctnessName(Correctness correctness);
    static QString boundName(Bound bound);
};

}  // namespace ak
