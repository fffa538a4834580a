#include "app/pages/experiments_page.h"

#include "widgets/details_panel.h"
#include "widgets/diff_view.h"
#include "widgets/experiment_filter_model.h"
#include "widgets/experiment_table_model.h"
#include "widgets/outcome_style.h"
#include "widgets/source_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <set>

namespace ak {

namespace {

constexpr Outcome kOutcomes[] = {Outcome::Baseline, Outcome::Kept, Outcome::Reverted, Outcome::Failed};
constexpr TimelinePlot::Metric kMetrics[] = {TimelinePlot::Metric::Speedup, TimelinePlot::Metric::Throughput,
                                             TimelinePlot::Metric::Latency, TimelinePlot::Metric::Bandwidth};

QString metricKey(TimelinePlot::Metric metric)
{
    switch (metric) {
    case TimelinePlot::Metric::Speedup: return QStringLiteral("speedup");
    case TimelinePlot::Metric::Throughput: return QStringLiteral("throughput");
    case TimelinePlot::Metric::Latency: return QStringLiteral("latency");
    case TimelinePlot::Metric::Bandwidth: return QStringLiteral("bandwidth");
    }
    return {};
}

QString shortCommit(const std::string& commit) { return QString::fromStdString(commit.substr(0, 8)); }

QString experimentLabel(const Experiment& e)
{
    return ExperimentsPage::tr("#%1 %2 (%3)").arg(e.number).arg(QString::fromStdString(e.kernel_file), shortCommit(e.commit));
}

// Columns shown by default; the others are one right-click on the header away. (Correctness is
// hidden: the outcome column marks failures, and the details tab names FAIL, TIMEOUT or CRASH.)
bool shownByDefault(int column)
{
    switch (column) {
    case ExperimentTableModel::NumberColumn:
    case ExperimentTableModel::KernelColumn:
    case ExperimentTableModel::OutcomeColumn:
    case ExperimentTableModel::LatencyColumn:
    case ExperimentTableModel::SpeedupColumn:
    case ExperimentTableModel::DescriptionColumn:
        return true;
    default:
        return false;
    }
}

}  // namespace

ExperimentsPage::ExperimentsPage(QWidget* parent) : Page(parent)
{
    setObjectName(QStringLiteral("experimentsPage"));
    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(6, 6, 3, 6);
    leftLayout->setSpacing(4);
    buildFilterBar(left);
    buildTable(left);
    QWidget* plotBox = buildTimeline();
    buildTabs();

    m_rightSplitter = new QSplitter(Qt::Vertical);
    m_rightSplitter->setObjectName(QStringLiteral("rightSplitter"));
    m_rightSplitter->addWidget(plotBox);
    m_rightSplitter->addWidget(m_tabs);
    m_rightSplitter->setStretchFactor(0, 2);
    m_rightSplitter->setStretchFactor(1, 3);
    m_rightSplitter->setSizes({420, 580});

    m_mainSplitter = new QSplitter(Qt::Horizontal);
    m_mainSplitter->setObjectName(QStringLiteral("mainSplitter"));
    m_mainSplitter->addWidget(left);
    m_mainSplitter->addWidget(m_rightSplitter);
    m_mainSplitter->setStretchFactor(0, 2);
    m_mainSplitter->setStretchFactor(1, 3);
    m_mainSplitter->setSizes({700, 900});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_mainSplitter);
    setFocusProxy(m_table);
}

ExperimentsPage::~ExperimentsPage() = default;

void ExperimentsPage::buildFilterBar(QWidget* left)
{
    auto* leftLayout = static_cast<QVBoxLayout*>(left->layout());
    auto* filterRow = new QHBoxLayout;
    m_filterEdit = new QLineEdit;
    m_filterEdit->setObjectName(QStringLiteral("filterEdit"));
    m_filterEdit->setPlaceholderText(tr("Filter by description, kernel, agent…"));
    m_filterEdit->setClearButtonEnabled(true);
    m_kernelCombo = new QComboBox;
    m_kernelCombo->setObjectName(QStringLiteral("kernelCombo"));
    m_kernelCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_kernelCombo->addItem(tr("All kernels"), QString());
    filterRow->addWidget(m_filterEdit, 1);
    filterRow->addWidget(m_kernelCombo);
    leftLayout->addLayout(filterRow);

    auto* outcomeRow = new QHBoxLayout;
    outcomeRow->addWidget(new QLabel(tr("Show:")));
    for (Outcome outcome : kOutcomes) {
        auto* box = new QCheckBox(OutcomeStyle::outcomeName(outcome));
        box->setIcon(OutcomeStyle::icon(outcome));
        box->setChecked(true);
        m_outcomeBoxes.insert(static_cast<int>(outcome), box);
        outcomeRow->addWidget(box);
        connect(box, &QCheckBox::toggled, this,
                [this, outcome](bool on) { changeFilter([&] { m_filter->setOutcomeVisible(outcome, on); }); });
    }
    outcomeRow->addStretch(1);
    leftLayout->addLayout(outcomeRow);
}

void ExperimentsPage::buildTable(QWidget* left)
{
    m_model = new ExperimentTableModel(this);
    m_filter = new ExperimentFilterModel(this);
    m_filter->setSourceModel(m_model);
    m_table = new QTableView;
    m_table->setObjectName(QStringLiteral("experimentTable"));
    m_table->setModel(m_filter);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(ExperimentTableModel::NumberColumn, Qt::AscendingOrder);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setHighlightSections(false);
    m_table->horizontalHeader()->setContextMenuPolicy(Qt::CustomContextMenu);
    for (int column = 0; column < ExperimentTableModel::ColumnCount; ++column)
        m_table->setColumnHidden(column, !shownByDefault(column));
    // Columns as wide as their values (names in the current language, numbers of typical size); long
    // headers elide and keep their tooltips. The description gets the rest.
    const QFontMetrics metrics = m_table->fontMetrics();
    const int digit = metrics.horizontalAdvance(QLatin1Char('0'));
    const int padding = 2 * m_table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin) + 12;
    int outcomeWidth = 0;
    for (Outcome outcome : kOutcomes)
        outcomeWidth = std::max(outcomeWidth, metrics.horizontalAdvance(OutcomeStyle::outcomeName(outcome)));
    int correctnessWidth = 0;
    for (Correctness c : {Correctness::Pass, Correctness::Fail, Correctness::Timeout, Correctness::Crash})
        correctnessWidth = std::max(correctnessWidth, metrics.horizontalAdvance(OutcomeStyle::correctnessName(c)));
    const std::pair<int, int> widths[] = {
        {ExperimentTableModel::NumberColumn, digit * 6 + padding},
        {ExperimentTableModel::KernelColumn, metrics.horizontalAdvance(QStringLiteral("rotary_embedding")) + padding},
        {ExperimentTableModel::OutcomeColumn, outcomeWidth + m_table->style()->pixelMetric(QStyle::PM_SmallIconSize) + 8 + padding},
        {ExperimentTableModel::CorrectnessColumn, correctnessWidth + padding},
        {ExperimentTableModel::LatencyColumn, digit * 7 + padding},
        {ExperimentTableModel::SpeedupColumn, digit * 6 + padding},
        {ExperimentTableModel::ThroughputColumn, digit * 6 + padding},
        {ExperimentTableModel::BandwidthColumn, digit * 6 + padding},
        {ExperimentTableModel::PctPeakColumn, digit * 5 + padding},
        {ExperimentTableModel::BoundColumn, digit * 10 + padding},
        {ExperimentTableModel::AgentColumn, digit * 12 + padding},
        {ExperimentTableModel::StartedColumn, digit * 19 + padding},
        {ExperimentTableModel::DurationColumn, digit * 5 + padding},
    };
    QHeaderView* header = m_table->horizontalHeader();
    for (const auto& [column, width] : widths) {
        const bool numeric = column == ExperimentTableModel::LatencyColumn || column == ExperimentTableModel::SpeedupColumn;
        // Short numeric columns must still show their header (unit included).
        m_table->setColumnWidth(column, numeric ? std::max(width, header->sectionSizeHint(column)) : width);
    }
    left->layout()->addWidget(m_table);
    static_cast<QVBoxLayout*>(left->layout())->setStretchFactor(m_table, 1);

    connect(m_filterEdit, &QLineEdit::textChanged, this,
            [this](const QString& text) { changeFilter([&] { m_filter->setFilterText(text); }); });
    connect(m_kernelCombo, &QComboBox::currentIndexChanged, this, [this](int index) {
        const QString kernel = m_kernelCombo->itemData(index).toString();
        changeFilter([&] { m_filter->setKernelType(kernel); });
        m_plot->setKernelFilter(kernel);
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &ExperimentsPage::onCurrentRowChanged);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &ExperimentsPage::onTableSelectionChanged);
    connect(m_table, &QWidget::customContextMenuRequested, this, &ExperimentsPage::showTableContextMenu);
    connect(m_table->horizontalHeader(), &QWidget::customContextMenuRequested, this,
            &ExperimentsPage::showHeaderContextMenu);
}

QWidget* ExperimentsPage::buildTimeline()
{
    auto* plotBox = new QWidget;
    auto* plotLayout = new QVBoxLayout(plotBox);
    plotLayout->setContentsMargins(3, 6, 6, 0);
    plotLayout->setSpacing(2);
    auto* plotBar = new QHBoxLayout;
    auto* metricLabel = new QLabel(tr("&Metric:"));
    m_metricCombo = new QComboBox;
    m_metricCombo->setObjectName(QStringLiteral("metricCombo"));
    for (TimelinePlot::Metric metric : kMetrics)
        m_metricCombo->addItem(TimelinePlot::metricLabel(metric), static_cast<int>(metric));
    metricLabel->setBuddy(m_metricCombo);
    plotBar->addWidget(metricLabel);
    plotBar->addWidget(m_metricCombo);
    plotBar->addStretch(1);
    plotLayout->addLayout(plotBar);
    m_plot = new TimelinePlot;
    m_plot->setObjectName(QStringLiteral("timeline"));
    plotLayout->addWidget(m_plot, 1);
    connect(m_metricCombo, &QComboBox::activated, this, [this](int index) {
        setMetric(static_cast<TimelinePlot::Metric>(m_metricCombo->itemData(index).toInt()));
    });
    connect(m_plot, &TimelinePlot::experimentClicked, this, &ExperimentsPage::experimentActivated);
    connect(m_plot, &TimelinePlot::experimentContextMenuRequested, this, [this](int number, const QPoint& globalPos) {
        emit experimentActivated(number);
        emit experimentMenuRequested(number, globalPos);
    });
    return plotBox;
}

void ExperimentsPage::buildTabs()
{
    m_tabs = new QTabWidget;
    m_tabs->setObjectName(QStringLiteral("experimentTabs"));
    m_tabs->setDocumentMode(true);
    m_parentDiff = new DiffView;
    m_parentDiff->setObjectName(QStringLiteral("parentDiff"));
    m_compareDiff = new DiffView;
    m_compareDiff->setObjectName(QStringLiteral("compareDiff"));
    // A diff's header names both sides (commit, kernel file) on one line; a long one must not set the
    // whole window's minimum width (it is clipped instead).
    for (DiffView* diff : {m_parentDiff, m_compareDiff})
        diff->setMinimumWidth(320);
    m_compareStack = new QStackedWidget;
    auto* hintPage = new QWidget;
    auto* hintLayout = new QVBoxLayout(hintPage);
    auto* hint = new QLabel(
        tr("Select two experiments to compare them: ctrl-click a second row in the table, or right-click an "
           "experiment and choose “Compare with”."));
    hint->setWordWrap(true);
    hint->setAlignment(Qt::AlignCenter);
    auto* compareButton = new QPushButton(tr("Compare With…"));
    connect(compareButton, &QPushButton::clicked, this, &ExperimentsPage::compareDialogRequested);
    hintLayout->addStretch(1);
    hintLayout->addWidget(hint);
    hintLayout->addWidget(compareButton, 0, Qt::AlignHCenter);
    hintLayout->addStretch(2);
    m_compareStack->addWidget(hintPage);
    m_compareStack->addWidget(m_compareDiff);
    m_source = new SourceView;
    m_source->setObjectName(QStringLiteral("sourceView"));
    m_details = new DetailsPanel;
    m_details->setObjectName(QStringLiteral("detailsPanel"));
    m_tabs->addTab(m_parentDiff, tr("Diff vs parent"));
    m_tabs->addTab(m_compareStack, tr("Diff vs selected"));
    m_tabs->addTab(m_source, tr("Source"));
    m_tabs->addTab(m_details, tr("Details"));
}

void ExperimentsPage::restoreLayout(QSettings& settings)
{
    const QByteArray main = settings.value(QStringLiteral("ui/mainSplitter")).toByteArray();
    const QByteArray right = settings.value(QStringLiteral("ui/rightSplitter")).toByteArray();
    if (!main.isEmpty())
        m_mainSplitter->restoreState(main);
    if (!right.isEmpty())
        m_rightSplitter->restoreState(right);
    const QVariant hidden = settings.value(QStringLiteral("ui/hiddenColumns"));
    if (hidden.isValid()) {
        const QStringList columns = hidden.toStringList();
        for (int column = 0; column < ExperimentTableModel::ColumnCount; ++column)
            m_table->setColumnHidden(column, columns.contains(QString::number(column)));
    }
    const QString metric = settings.value(QStringLiteral("ui/metric")).toString();
    for (TimelinePlot::Metric m : kMetrics) {
        if (metricKey(m) == metric)
            setMetric(m);
    }
}

void ExperimentsPage::saveLayout(QSettings& settings) const
{
    settings.setValue(QStringLiteral("ui/mainSplitter"), m_mainSplitter->saveState());
    settings.setValue(QStringLiteral("ui/rightSplitter"), m_rightSplitter->saveState());
    QStringList hidden;
    for (int column = 0; column < ExperimentTableModel::ColumnCount; ++column) {
        if (m_table->isColumnHidden(column))
            hidden.append(QString::number(column));
    }
    settings.setValue(QStringLiteral("ui/hiddenColumns"), hidden);
    settings.setValue(QStringLiteral("ui/metric"), metricKey(m_plot->metric()));
}

void ExperimentsPage::setMetric(TimelinePlot::Metric metric)
{
    const bool changed = m_plot->metric() != metric;
    if (changed)
        m_plot->setMetric(metric);
    const int index = m_metricCombo->findData(static_cast<int>(metric));
    if (index >= 0 && m_metricCombo->currentIndex() != index)
        m_metricCombo->setCurrentIndex(index);
    emit metricChanged(metric);
}

TimelinePlot::Metric ExperimentsPage::metric() const { return m_plot->metric(); }

void ExperimentsPage::showCompareTab() { m_tabs->setCurrentIndex(CompareDiffTab); }

QCheckBox* ExperimentsPage::outcomeCheckBox(Outcome outcome) const
{
    return m_outcomeBoxes.value(static_cast<int>(outcome), nullptr);
}

// ------------------------------------------------------------------------------------------------
// The session

void ExperimentsPage::setSession(const SnapshotPtr& session, const std::vector<Experiment>& experiments)
{
    m_experiments = session ? experiments : std::vector<Experiment>{};
    m_indexOfNumber.clear();
    for (std::size_t i = 0; i < m_experiments.size(); ++i)
        m_indexOfNumber.insert(m_experiments[i].number, i);
    m_selected = -1;
    m_compare = -1;
    m_syncing = true;
    m_model->setExperiments(m_experiments);
    m_plot->setExperiments(m_experiments);
    m_syncing = false;
    updateKernelCombo();
    clearShown();
}

void ExperimentsPage::appendExperiments(const std::vector<Experiment>& added)
{
    if (added.empty())
        return;
    QScrollBar* scroll = m_table->verticalScrollBar();
    const bool atBottom = scroll->value() == scroll->maximum();
    const std::size_t first = m_experiments.size();
    m_experiments.insert(m_experiments.end(), added.begin(), added.end());
    for (std::size_t i = first; i < m_experiments.size(); ++i)
        m_indexOfNumber.insert(m_experiments[i].number, i);
    m_syncing = true;
    m_model->appendExperiments(added);
    m_plot->appendExperiments(added);
    m_syncing = false;
    updateKernelCombo();
    if (atBottom)
        m_table->scrollToBottom();
}

const Experiment* ExperimentsPage::experiment(int number) const
{
    const auto it = m_indexOfNumber.constFind(number);
    return it == m_indexOfNumber.constEnd() ? nullptr : &m_experiments[*it];
}

void ExperimentsPage::updateKernelCombo()
{
    std::set<std::string> kernels;
    for (const Experiment& e : m_experiments)
        kernels.insert(e.kernel_type);
    const QString current = m_kernelCombo->currentData().toString();
    QStringList wanted;
    for (const std::string& k : kernels)
        wanted.append(QString::fromStdString(k));
    QStringList have;
    for (int i = 1; i < m_kernelCombo->count(); ++i)
        have.append(m_kernelCombo->itemData(i).toString());
    if (have == wanted)
        return;
    const QSignalBlocker blocker(m_kernelCombo);
    m_kernelCombo->clear();
    m_kernelCombo->addItem(tr("All kernels"), QString());
    for (const QString& k : wanted)
        m_kernelCombo->addItem(k, k);
    const int index = m_kernelCombo->findData(current);
    m_kernelCombo->setCurrentIndex(index >= 0 ? index : 0);
    const QString kernel = m_kernelCombo->currentData().toString();
    if (kernel != m_filter->kernelType())
        m_filter->setKernelType(kernel);
    if (kernel != m_plot->kernelFilter())
        m_plot->setKernelFilter(kernel);
}

// ------------------------------------------------------------------------------------------------
// Selection

void ExperimentsPage::setSelection(int selected, int compare)
{
    const Experiment* e = selected >= 0 ? experiment(selected) : nullptr;
    const int number = e ? selected : -1;
    const bool compareChanged = compare != m_compare;
    m_compare = compare;
    if (compareChanged && compare < 0)
        m_compareStack->setCurrentIndex(0);
    if (number == m_selected)
        return;
    m_selected = number;
    // A click on a row already made it current (and a ctrl-click must keep both rows selected).
    const QModelIndex current = m_table->currentIndex();
    if (!current.isValid() || m_filter->experimentNumberAt(current.row()) != number)
        selectRow(number);
    if (!e) {
        clearShown();
        return;
    }
    m_plot->selectExperiment(number);
    m_details->setExperiment(*e);
}

void ExperimentsPage::selectRow(int number)
{
    const int row = number >= 0 ? m_filter->proxyRowOfExperiment(number) : -1;
    m_syncing = true;
    if (row >= 0) {
        const QModelIndex index = m_filter->index(row, 0);
        m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_table->scrollTo(index, QAbstractItemView::PositionAtCenter);
    } else {
        m_table->selectionModel()->clearSelection();
        m_table->selectionModel()->setCurrentIndex(QModelIndex(), QItemSelectionModel::NoUpdate);
        if (number >= 0)
            emit statusMessage(tr("Experiment %1 is hidden by the table's filters.").arg(number));
    }
    m_syncing = false;
}

void ExperimentsPage::clearShown()
{
    m_plot->selectExperiment(-1);
    m_details->clear();
    m_parentDiff->clear();
    m_compareDiff->clear();
    m_compareStack->setCurrentIndex(0);
    m_source->setSource(QString());
}

void ExperimentsPage::showSources(const SourcesResult& result)
{
    const Experiment* e = experiment(result.number);
    if (!e || result.number != m_selected)
        return;
    if (!result.error.isEmpty()) {
        m_parentDiff->clear();
        m_source->setSource(result.error);
    } else {
        const QString parentLabel =
            e->parent_commit.empty() ? tr("(no parent)") : tr("parent %1").arg(shortCommit(e->parent_commit));
        m_parentDiff->setTexts(result.parentSource, result.source, parentLabel, experimentLabel(*e));
        m_source->setSource(result.source);
    }
    const Experiment* compare = result.compareNumber >= 0 ? experiment(result.compareNumber) : nullptr;
    if (compare && result.error.isEmpty()) {
        m_compareDiff->setTexts(result.compareSource, result.source, experimentLabel(*compare), experimentLabel(*e));
        m_compareStack->setCurrentIndex(1);
    } else {
        m_compareStack->setCurrentIndex(0);
    }
}

void ExperimentsPage::changeFilter(const std::function<void()>& change)
{
    // Filtering removes rows, which moves the table's current index to a neighbour. The selection is
    // the experiment, not the row: it stays selected (in the plot and the tabs) while hidden, and its
    // row is selected again when it comes back.
    m_syncing = true;
    change();
    const int row = m_selected >= 0 ? m_filter->proxyRowOfExperiment(m_selected) : -1;
    if (row >= 0) {
        const QModelIndex index = m_filter->index(row, 0);
        m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_table->scrollTo(index);
    } else {
        m_table->selectionModel()->clearSelection();
        m_table->selectionModel()->setCurrentIndex(QModelIndex(), QItemSelectionModel::NoUpdate);
    }
    m_syncing = false;
}

void ExperimentsPage::onCurrentRowChanged()
{
    if (m_syncing)
        return;
    const QModelIndex current = m_table->currentIndex();
    if (!current.isValid())
        return;
    emit experimentActivated(m_filter->experimentNumberAt(current.row()));
}

void ExperimentsPage::onTableSelectionChanged()
{
    if (m_syncing)
        return;
    // Two rows selected (ctrl-click): the current one is shown, the other is the comparison.
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.size() != 2)
        return;
    const int currentRow = m_table->currentIndex().row();
    const QModelIndex other = rows[0].row() == currentRow ? rows[1] : rows[0];
    const int number = m_filter->experimentNumberAt(other.row());
    if (number >= 0 && number != m_compare) {
        emit compareRequested(number);
        showCompareTab();
    }
}

void ExperimentsPage::showTableContextMenu(const QPoint& pos)
{
    const QModelIndex index = m_table->indexAt(pos);
    if (!index.isValid())
        return;
    emit experimentMenuRequested(m_filter->experimentNumberAt(index.row()), m_table->viewport()->mapToGlobal(pos));
}

void ExperimentsPage::showHeaderContextMenu(const QPoint& pos)
{
    QMenu menu(this);
    for (int column = 0; column < ExperimentTableModel::ColumnCount; ++column) {
        QAction* action = menu.addAction(m_model->headerData(column, Qt::Horizontal).toString());
        action->setCheckable(true);
        action->setChecked(!m_table->isColumnHidden(column));
        action->setEnabled(column != ExperimentTableModel::NumberColumn);
        connect(action, &QAction::toggled, this, [this, column](bool on) { m_table->setColumnHidden(column, !on); });
    }
    menu.exec(m_table->horizontalHeader()->mapToGlobal(pos));
}

}  // namespace ak
