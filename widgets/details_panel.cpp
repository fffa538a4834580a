#include "widgets/details_panel.h"

#include "widgets/outcome_style.h"
#include "widgets/value_format.h"

#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QVBoxLayout>

#include <cmath>
#include <optional>

namespace ak {
namespace {

struct Field {
    const char* key;  // results.tsv column name
    bool monospace;
};

// Display order: identity, verdict, metrics, provenance. Every results.tsv column appears once.
constexpr Field kFields[] = {
    {"experiment", false},      {"tag", false},           {"kernel_type", false},    {"kernel_file", true},
    {"outcome", false},         {"correctness", false},   {"latency_us", false},     {"latency_iqr_us", false},
    {"speedup_vs_pytorch", false}, {"throughput_tflops", false}, {"bandwidth_gb_s", false},
    {"pct_peak", false},        {"bound", false},         {"peak_vram_mb", false},   {"agent", false},
    {"started_utc", false},     {"duration_s", false},    {"commit", true},          {"parent_commit", true},
    {"description", false},     {"detail", true},
};

QString labelOf(const QString& key) {
    // Translated labels with units.
    if (key == QLatin1String("experiment")) return DetailsPanel::tr("Experiment");
    if (key == QLatin1String("tag")) return DetailsPanel::tr("Run tag");
    if (key == QLatin1String("kernel_type")) return DetailsPanel::tr("Kernel type");
    if (key == QLatin1String("kernel_file")) return DetailsPanel::tr("Kernel file");
    if (key == QLatin1String("outcome")) return DetailsPanel::tr("Outcome");
    if (key == QLatin1String("correctness")) return DetailsPanel::tr("Correctness");
    if (key == QLatin1String("latency_us")) return DetailsPanel::tr("Latency, median (µs)");
    if (key == QLatin1String("latency_iqr_us")) return DetailsPanel::tr("Latency IQR (µs)");
    if (key == QLatin1String("speedup_vs_pytorch")) return DetailsPanel::tr("Speedup vs PyTorch (×)");
    if (key == QLatin1String("throughput_tflops")) return DetailsPanel::tr("Throughput (TFLOP/s)");
    if (key == QLatin1String("bandwidth_gb_s")) return DetailsPanel::tr("Bandwidth (GB/s)");
    if (key == QLatin1String("pct_peak")) return DetailsPanel::tr("Peak of the bound resource (%)");
    if (key == QLatin1String("bound")) return DetailsPanel::tr("Bound");
    if (key == QLatin1String("peak_vram_mb")) return DetailsPanel::tr("Peak VRAM (MB)");
    if (key == QLatin1String("agent")) return DetailsPanel::tr("Agent");
    if (key == QLatin1String("started_utc")) return DetailsPanel::tr("Started (UTC)");
    if (key == QLatin1String("duration_s")) return DetailsPanel::tr("Evaluation time (s)");
    if (key == QLatin1String("commit")) return DetailsPanel::tr("Commit");
    if (key == QLatin1String("parent_commit")) return DetailsPanel::tr("Parent commit");
    if (key == QLatin1String("description")) return DetailsPanel::tr("Description");
    if (key == QLatin1String("detail")) return DetailsPanel::tr("Detail");
    return key;
}

QString exact(const std::optional<double>& value) {
    if (!value || !std::isfinite(*value)) return QString();
    return QLocale().toString(*value, 'g', QLocale::FloatingPointShortest);
}

}  // namespace

DetailsPanel::DetailsPanel(QWidget* parent) : QWidget(parent) {
    m_title = new QLabel(this);
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    m_title->setFont(titleFont);

    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setRowWrapPolicy(QFormLayout::DontWrapRows);
    const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    for (const Field& field : kFields) {
        const QString key = QString::fromLatin1(field.key);
        if (key == QLatin1String("detail")) continue;  // shown below in full
        auto* value = new QLabel(this);
        value->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
        value->setTextFormat(Qt::PlainText);
        value->setWordWrap(key == QLatin1String("description"));
        if (field.monospace) value->setFont(fixed);
        value->setObjectName(key);
        form->addRow(labelOf(key), value);
        m_values.insert(key, value);
    }
    m_detail = new QPlainTextEdit(this);
    m_detail->setReadOnly(true);
    m_detail->setFont(fixed);
    m_detail->setPlaceholderText(tr("No detail recorded"));

    auto* formHost = new QWidget(this);
    formHost->setLayout(form);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(formHost);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(scroll, 3);
    layout->addWidget(new QLabel(labelOf(QStringLiteral("detail")), this));
    layout->addWidget(m_detail, 1);
    clear();
}

DetailsPanel::~DetailsPanel() = default;

QStringList DetailsPanel::fieldKeys() {
    QStringList keys;
    for (const Field& field : kFields) keys << QString::fromLatin1(field.key);
    return keys;
}

void DetailsPanel::clear() {
    m_hasExperiment = false;
    m_title->setText(tr("No experiment selected"));
    for (QLabel* label : std::as_const(m_values)) {
        label->clear();
        label->setStyleSheet(QString());
    }
    m_detail->clear();
}

void DetailsPanel::setExperiment(const Experiment& e) {
    m_hasExperiment = true;
    const auto set = [this](const char* key, const QString& text) {
        m_values.value(QString::fromLatin1(key))->setText(text);
    };
    const auto colour = [this](const char* key, const QColor& c) {
        m_values.value(QString::fromLatin1(key))->setStyleSheet(QStringLiteral("color: %1; font-weight: bold;").arg(c.name()));
    };
    m_title->setText(tr("Experiment %1 · %2").arg(e.number).arg(format::text(e.kernel_type)));
    set("experiment", QString::number(e.number));
    set("tag", format::text(e.tag));
    set("kernel_type", format::text(e.kernel_type));
    set("kernel_file", format::text(e.kernel_file));
    set("outcome", OutcomeStyle::outcomeName(e.outcome));
    colour("outcome", OutcomeStyle::color(e.outcome));
    set("correctness", OutcomeStyle::correctnessName(e.correctness));
    colour("correctness", OutcomeStyle::correctnessColor(e.correctness));
    set("latency_us", exact(e.latency_us));
    set("latency_iqr_us", exact(e.latency_iqr_us));
    set("speedup_vs_pytorch", exact(e.speedup_vs_pytorch));
    set("throughput_tflops", exact(e.throughput_tflops));
    set("bandwidth_gb_s", exact(e.bandwidth_gb_s));
    set("pct_peak", exact(e.pct_peak));
    set("bound", e.bound == Bound::Unknown ? tr("unknown") : OutcomeStyle::boundName(e.bound));
    set("peak_vram_mb", exact(e.peak_vram_mb));
    set("agent", format::text(e.agent));
    set("started_utc", format::text(e.started_utc));
    set("duration_s", exact(e.duration_s));
    set("commit", format::text(e.commit));
    set("parent_commit", e.parent_commit.empty() ? tr("(root commit)") : format::text(e.parent_commit));
    set("description", format::text(e.description));
    m_detail->setPlainText(format::text(e.detail));
}

QString DetailsPanel::valueOf(const QString& fieldKey) const {
    if (fieldKey == QLatin1String("detail")) return m_detail->toPlainText();
    const QLabel* label = m_values.value(fieldKey, nullptr);
    return label != nullptr ? label->text() : QString();
}

}  // namespace ak
