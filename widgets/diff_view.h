#pragma once
// A unified diff of two sources (an experiment against its parent, or any two experiments):
// old/new line-number gutters, inserted lines on green, deleted lines on red, a header line per
// hunk, CUDA C++ highlighting of the code, and a "Whole file" toggle (off: changes with 3 lines
// of context).
//
// renderedLines() is the view as text, one entry per shown line:
//   hunk header  "@@ -3,4 +3,5 @@"            (",count" left out when the count is 1, as diff -u does)
//   context      "  <old> <new> text"
//   deleted      "- <old> <pad> text"
//   inserted     "+ <pad> <new> text"
// where <old>/<new> are right-aligned to the width W of the largest line number of both texts and
// <pad> is W spaces. Example (W = 2): "   9  9 int i;", "- 10    x = 1;", "+    10 x = 2;".
#include <QString>
#include <QStringList>
#include <QWidget>

class QCheckBox;
class QLabel;

namespace ak {

class SourceView;

class DiffView : public QWidget {
    Q_OBJECT
public:
    explicit DiffView(QWidget* parent = nullptr);
    ~DiffView() override;

    void setTexts(const QString& oldText, const QString& newText, const QString& oldLabel, const QString& newLabel);
    void clear();

    void setWholeFile(bool wholeFile);
    bool wholeFile() const { return m_wholeFile; }

    QStringList renderedLines() const { return m_rendered; }
    int hunkCount() const { return m_hunkCount; }
    int insertedCount() const { return m_inserted; }
    int deletedCount() const { return m_deleted; }
    SourceView* textView() const { return m_view; }

    static constexpr int kContextLines = 3;

private:
    void render();

    QLabel* m_title = nullptr;
    QLabel* m_summary = nullptr;
    QCheckBox* m_wholeFileBox = nullptr;
    SourceView* m_view = nullptr;

    QString m_oldText, m_newText, m_oldLabel, m_newLabel;
    bool m_wholeFile = false;
    QStringList m_rendered;
    int m_hunkCount = 0;
    int m_inserted = 0;
    int m_deleted = 0;
};

}  // namespace ak
