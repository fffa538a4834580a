#pragma once
// A code view: monospace, no wrapping, a line-number gutter, CUDA C++ highlighting
// (createSourceHighlighter). Read-only by default; setReadOnly(false) makes it an editor, which
// also highlights the current line.
#include <QList>
#include <QPlainTextEdit>
#include <QStringList>
#include <QTextEdit>

class QSyntaxHighlighter;

namespace ak {

class SourceView : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit SourceView(QWidget* parent = nullptr);
    ~SourceView() override;

    // Replaces the text (and clears custom gutter labels and line selections).
    void setSource(const QString& text);
    QSyntaxHighlighter* highlighter() const { return m_highlighter; }

    // Gutter text per line (block); empty list = 1-based line numbers. DiffView shows old/new numbers.
    void setGutterLabels(const QStringList& labels);
    const QStringList& gutterLabels() const { return m_labels; }
    int gutterWidth() const;

    // Full-width line backgrounds that stay while the cursor moves (DiffView's +/- lines).
    void setLineSelections(const QList<QTextEdit::ExtraSelection>& selections);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    class Gutter;
    friend class Gutter;
    void paintGutter(QPaintEvent* event);
    QString gutterTextOf(int blockNumber) const;
    void updateGutterWidth();
    void updateGutterArea(const QRect& rect, int dy);
    void updateSelections();

    Gutter* m_gutter = nullptr;
    QSyntaxHighlighter* m_highlighter = nullptr;
    QStringList m_labels;
    QList<QTextEdit::ExtraSelection> m_lineSelections;
};

}  // namespace ak
