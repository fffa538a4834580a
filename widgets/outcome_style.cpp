#include "widgets/outcome_style.h"

#include <QPainter>
#include <QPixmap>

#include <array>

namespace ak {

QColor OutcomeStyle::color(Outcome outcome) {
    switch (outcome) {
    case Outcome::Baseline:
    case Outcome::Kept: return QColor(0x2e, 0x7d, 0x32);      // green
    case Outcome::Reverted: return QColor(0x8a, 0x8a, 0x8a);  // grey
    case Outcome::Failed: return QColor(0xc6, 0x28, 0x28);    // red
    }
    return QColor(Qt::black);
}

MarkerShape OutcomeStyle::marker(Outcome outcome) {
    switch (outcome) {
    case Outcome::Baseline:
    case Outcome::Kept: return MarkerShape::FilledCircle;
    case Outcome::Reverted: return MarkerShape::HollowCircle;
    case Outcome::Failed: return MarkerShape::Cross;
    }
    return MarkerShape::FilledCircle;
}

QColor OutcomeStyle::correctnessColor(Correctness correctness) {
    return correctness == Correctness::Pass ? color(Outcome::Kept) : color(Outcome::Failed);
}

QColor OutcomeStyle::kernelColor(int index)
{
    static const QColor palette[] = {QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44),
                                     QColor(214, 39, 40),  QColor(148, 103, 189), QColor(140, 86, 75),
                                     QColor(227, 119, 194), QColor(127, 127, 127), QColor(188, 189, 34),
                                     QColor(23, 190, 207)};
    constexpr int count = int(sizeof(palette) / sizeof(palette[0]));
    return palette[((index % count) + count) % count];
}

QColor OutcomeStyle::frontierColor() { return QColor(0x15, 0x65, 0xc0); }   // blue
QColor OutcomeStyle::selectionColor() { return QColor(0xef, 0x6c, 0x00); }  // orange
QColor OutcomeStyle::insertedLineBackground() { return QColor(0xdd, 0xf4, 0xdd); }
QColor OutcomeStyle::deletedLineBackground() { return QColor(0xfb, 0xdf, 0xdf); }
QColor OutcomeStyle::hunkHeaderBackground() { return QColor(0xe3, 0xec, 0xf7); }

void OutcomeStyle::drawMarker(QPainter& painter, Outcome outcome, const QPointF& center, double diameter) {
    const QColor c = color(outcome);
    const double r = diameter / 2.0;
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    switch (marker(outcome)) {
    case MarkerShape::FilledCircle:
        painter.setPen(QPen(c, 1.0));
        painter.setBrush(c);
        painter.drawEllipse(center, r - 0.5, r - 0.5);
        break;
    case MarkerShape::HollowCircle:
        painter.setPen(QPen(c, 1.5));
        painter.setBrush(Qt::NoBrush);
        painter.drawEllipse(center, r - 1.0, r - 1.0);
        break;
    case MarkerShape::Cross:
        painter.setPen(QPen(c, 2.0));
        painter.drawLine(center + QPointF(-r + 1, -r + 1), center + QPointF(r - 1, r - 1));
        painter.drawLine(center + QPointF(-r + 1, r - 1), center + QPointF(r - 1, -r + 1));
        break;
    }
    painter.restore();
}

QPixmap OutcomeStyle::markerPixmap(Outcome outcome, int diameter) {
    QPixmap pixmap(diameter, diameter);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    drawMarker(painter, outcome, QPointF(diameter / 2.0, diameter / 2.0), diameter);
    painter.end();
    return pixmap;
}

const QIcon& OutcomeStyle::icon(Outcome outcome) {
    static std::array<QIcon, 4> icons;
    QIcon& icon = icons[static_cast<std::size_t>(outcome)];
    if (icon.isNull()) icon = QIcon(markerPixmap(outcome, 12));
    return icon;
}

QString OutcomeStyle::outcomeName(Outcome outcome) {
    switch (outcome) {
    case Outcome::Baseline: return tr("baseline");
    case Outcome::Kept: return tr("kept");
    case Outcome::Reverted: return tr("reverted");
    case Outcome::Failed: return tr("failed");
    }
    return QString();
}

QString OutcomeStyle::correctnessName(Correctness correctness) {
    // AutoKernel's column values as results.tsv writes them.
    switch (correctness) {
    //: correctness value in results.tsv; may stay untranslated
    case Correctness::Pass: return tr("PASS");
    //: correctness value in results.tsv; may stay untranslated
    case Correctness::Fail: return tr("FAIL");
    //: correctness value in results.tsv; may stay untranslated
    case Correctness::Timeout: return tr("TIMEOUT");
    //: correctness value in results.tsv; may stay untranslated
    case Correctness::Crash: return tr("CRASH");
    }
    return QString();
}

QString OutcomeStyle::boundName(Bound bound) {
    switch (bound) {
    case Bound::Memory: return tr("memory");
    case Bound::Compute: return tr("compute");
    case Bound::Unknown: return QString();
    }
    return QString();
}

}  // namespace ak
