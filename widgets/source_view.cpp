#include "widgets/source_view.h"

#include "widgets/source_highlighter.h"

#include <QFontDatabase>
#include <QPainter>
#include <QSyntaxHighlighter>
#include <QTextBlock>

#include <algorithm>

namespace ak {

class SourceView::Gutter : public QWidget {
public:
    explicit Gutter(SourceView* view) : QWidget(view), m_view(view) {}
    QSize sizeHint() const override { return QSize(m_view->gutterWidth(), 0); }

protected:
    void paintEvent(QPaintEvent* event) override { m_view->paintGutter(event); }

private:
    SourceView* m_view;
};

SourceView::SourceView(QWidget* parent) : QPlainTextEdit(parent), m_gutter(new Gutter(this)) {
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setReadOnly(true);
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    setTabStopDistance(4 * fontMetrics().horizontalAdvance(QLatin1Char(' ')));
    m_highlighter = createSourceHighlighter(document());

    connect(this, &QPlainTextEdit::blockCountChanged, this, [this] { updateGutterWidth(); });
    connect(this, &QPlainTextEdit::updateRequest, this, &SourceView::updateGutterArea);
    connect(this, &QPlainTextEdit::cursorPositionChanged, this, &SourceView::updateSelections);
    updateGutterWidth();
}

SourceView::~SourceView() = default;

void SourceView::setSource(const QString& text) {
    m_labels.clear();
    m_lineSelections.clear();
    setPlainText(text);
    updateGutterWidth();
    updateSelections();
}

void SourceView::setGutterLabels(const QStringList& labels) {
    m_labels = labels;
    updateGutterWidth();
    m_gutter->update();
}

QString SourceView::gutterTextOf(int blockNumber) const {
    if (m_labels.isEmpty()) return QString::number(blockNumber + 1);
    return blockNumber < m_labels.size() ? m_labels.at(blockNumber) : QString();
}

int SourceView::gutterWidth() const {
    const QFontMetrics metrics(font());
    int widest = 0;
    if (m_labels.isEmpty()) {
        const int digits = int(QString::number(std::max(1, blockCount())).size());
        widest = metrics.horizontalAdvance(QLatin1Char('9')) * std::max(3, digits);
    } else {
        for (const QString& label : m_labels) widest = std::max(widest, metrics.horizontalAdvance(label));
    }
    return widest + 12;
}

void SourceView::updateGutterWidth() {
    setViewportMargins(gutterWidth(), 0, 0, 0);
    const QRect r = contentsRect();
    m_gutter->setGeometry(QRect(r.left(), r.top(), gutterWidth(), r.height()));
}

void SourceView::updateGutterArea(const QRect& rect, int dy) {
    if (dy != 0) m_gutter->scroll(0, dy);
    else m_gutter->update(0, rect.y(), m_gutter->width(), rect.height());
}

void SourceView::resizeEvent(QResizeEvent* event) {
    QPlainTextEdit::resizeEvent(event);
    const QRect r = contentsRect();
    m_gutter->setGeometry(QRect(r.left(), r.top(), gutterWidth(), r.height()));
}

void SourceView::paintGutter(QPaintEvent* event) {
    QPainter painter(m_gutter);
    painter.fillRect(event->rect(), palette().color(QPalette::AlternateBase));
    painter.setFont(font());
    painter.setPen(palette().color(QPalette::PlaceholderText));
    const int right = m_gutter->width() - 6;
    QTextBlock block = firstVisibleBlock();
    int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
    while (block.isValid() && top <= event->rect().bottom()) {
        const int height = qRound(blockBoundingRect(block).height());
        if (block.isVisible() && top + height >= event->rect().top()) {
            painter.drawText(QRect(0, top, right, fontMetrics().height()), Qt::AlignRight,
                             gutterTextOf(block.blockNumber()));
        }
        block = block.next();
        top += height;
    }
}

void SourceView::setLineSelections(const QList<QTextEdit::ExtraSelection>& selections) {
    m_lineSelections = selections;
    updateSelections();
}

void SourceView::updateSelections() {
    QList<QTextEdit::ExtraSelection> all = m_lineSelections;
    if (!isReadOnly()) {
        QTextEdit::ExtraSelection current;
        current.format.setBackground(palette().color(QPalette::AlternateBase));
        current.format.setProperty(QTextFormat::FullWidthSelection, true);
        current.cursor = textCursor();
        current.cursor.clearSelection();
        all.prepend(current);
    }
    setExtraSelections(all);
}

}  // namespace ak
