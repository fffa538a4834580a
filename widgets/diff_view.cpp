#include "widgets/diff_view.h"

#include "analysis/line_diff.h"
#include "widgets/outcome_style.h"
#include "widgets/source_view.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QTextBlock>
#include <QVBoxLayout>

#include <algorithm>

namespace ak {
namespace {

QString rangeText(int start, int count) {
    if (count == 1) return QString::number(start);
    return QString::number(start) + QLatin1Char(',') + QString::number(count);
}

QString hunkHeader(const DiffHunk& h) {
    return QStringLiteral("@@ -") + rangeText(h.old_start, h.old_count) + QStringLiteral(" +") +
           rangeText(h.new_start, h.new_count) + QStringLiteral(" @@");
}

int lineCount(const std::string& text) {
    if (text.empty()) return 0;
    int lines = static_cast<int>(std::count(text.begin(), text.end(), '\n'));
    if (text.back() != '\n') ++lines;
    return lines;
}

QString numberOrBlank(int number, int width) {
    return number > 0 ? QStringLiteral("%1").arg(number, width) : QString(width, QLatin1Char(' '));
}

}  // namespace

DiffView::DiffView(QWidget* parent) : QWidget(parent) {
    m_title = new QLabel(this);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary = new QLabel(this);
    m_wholeFileBox = new QCheckBox(tr("Whole file"), this);
    m_wholeFileBox->setToolTip(tr("Show the whole file instead of only the changes with %n line(s) of context",
                                  nullptr, kContextLines));
    m_view = new SourceView(this);

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_title, 1);
    bar->addWidget(m_summary);
    bar->addWidget(m_wholeFileBox);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);

    connect(m_wholeFileBox, &QCheckBox::toggled, this, &DiffView::setWholeFile);
    render();
}

DiffView::~DiffView() = default;

void DiffView::setTexts(const QString& oldText, const QString& newText, const QString& oldLabel,
                        const QString& newLabel) {
    m_oldText = oldText;
    m_newText = newText;
    m_oldLabel = oldLabel;
    m_newLabel = newLabel;
    render();
}

void DiffView::clear() { setTexts(QString(), QString(), QString(), QString()); }

void DiffView::setWholeFile(bool wholeFile) {
    if (wholeFile == m_wholeFile) return;
    m_wholeFile = wholeFile;
    {
        const QSignalBlocker blocker(m_wholeFileBox);
        m_wholeFileBox->setChecked(wholeFile);
    }
    render();
}

void DiffView::render() {
    const std::string oldUtf8 = m_oldText.toStdString();
    const std::string newUtf8 = m_newText.toStdString();
    const int oldLines = lineCount(oldUtf8);
    const int newLines = lineCount(newUtf8);
    const int width = static_cast<int>(QString::number(std::max({1, oldLines, newLines})).size());

    // Whole file = one hunk whose context reaches both ends.
    const int context = m_wholeFile ? std::max(oldLines, newLines) + 1 : kContextLines;
    std::vector<DiffHunk> hunks = diff_hunks(oldUtf8, newUtf8, context);
    if (hunks.empty() && m_wholeFile && oldLines > 0) {
        // Identical texts: no hunk, but the whole file is still worth showing.
        DiffHunk all{1, oldLines, 1, newLines, diff_lines(oldUtf8, newUtf8)};
        hunks.push_back(std::move(all));
        m_hunkCount = 0;
    } else {
        m_hunkCount = static_cast<int>(hunks.size());
    }

    m_rendered.clear();
    QStringList code;
    QStringList gutter;
    struct Mark { int block; QColor background; bool header; };
    std::vector<Mark> marks;
    m_inserted = m_deleted = 0;
    const QString pad(width, QLatin1Char(' '));

    for (const DiffHunk& hunk : hunks) {
        if (m_hunkCount > 0) {
            const QString header = hunkHeader(hunk);
            marks.push_back({static_cast<int>(code.size()), OutcomeStyle::hunkHeaderBackground(), true});
            m_rendered << header;
            code << header;
            gutter << QString();
        }
        for (const DiffLine& line : hunk.lines) {
            const QString text = QString::fromStdString(line.text);
            QChar op = QLatin1Char(' ');
            if (line.op == DiffOp::Insert) {
                op = QLatin1Char('+');
                ++m_inserted;
                marks.push_back({static_cast<int>(code.size()), OutcomeStyle::insertedLineBackground(), false});
            } else if (line.op == DiffOp::Delete) {
                op = QLatin1Char('-');
                ++m_deleted;
                marks.push_back({static_cast<int>(code.size()), OutcomeStyle::deletedLineBackground(), false});
            }
            const QString oldNo = line.op == DiffOp::Insert ? pad : numberOrBlank(line.old_line, width);
            const QString newNo = line.op == DiffOp::Delete ? pad : numberOrBlank(line.new_line, width);
            m_rendered << QString(op) + QLatin1Char(' ') + oldNo + QLatin1Char(' ') + newNo + QLatin1Char(' ') + text;
            code << text;
            gutter << oldNo + QLatin1Char(' ') + newNo + QLatin1Char(' ') + op;
        }
    }

    m_view->setSource(code.join(QLatin1Char('\n')));
    m_view->setGutterLabels(gutter);
    QList<QTextEdit::ExtraSelection> selections;
    selections.reserve(static_cast<qsizetype>(marks.size()));
    for (const Mark& mark : marks) {
        QTextEdit::ExtraSelection s;
        s.cursor = QTextCursor(m_view->document()->findBlockByNumber(mark.block));
        s.format.setBackground(mark.background);
        s.format.setProperty(QTextFormat::FullWidthSelection, true);
        selections << s;
        if (mark.header) {
            // A header is not code: one colour over the syntax colours.
            QTextEdit::ExtraSelection text;
            text.cursor = s.cursor;
            text.cursor.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
            text.format.setForeground(OutcomeStyle::frontierColor());
            selections << text;
        }
    }
    m_view->setLineSelections(selections);

    if (m_oldLabel.isEmpty() && m_newLabel.isEmpty()) m_title->clear();
    else m_title->setText(QStringLiteral("--- %1    +++ %2").arg(m_oldLabel, m_newLabel));
    if (m_oldText.isEmpty() && m_newText.isEmpty()) m_summary->clear();
    else if (m_inserted == 0 && m_deleted == 0) m_summary->setText(tr("no changes"));
    else m_summary->setText(tr("+%1 −%2").arg(m_inserted).arg(m_deleted));
}

}  // namespace ak
