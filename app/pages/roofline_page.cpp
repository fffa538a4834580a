#include "app/pages/roofline_page.h"

#include "analysis/gpu_specs.h"
#include "analysis/measured_ceilings.h"
#include "analysis/roofline.h"
#include "app/profile_document.h"
#include "widgets/outcome_style.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

#include <algorithm>
#include <set>

namespace ak {

namespace {

constexpr Outcome kOutcomes[] = {Outcome::Baseline, Outcome::Kept, Outcome::Reverted, Outcome::Failed};
constexpr std::size_t kProfilePoints = 12;  // the profile's largest groups drawn on the roofline

QString number(double v, int decimals) { return QLocale().toString(v, 'f', decimals); }

std::optional<GpuSpec> specOf(const SessionInfo& info)
{
    int major = 0, minor = 0;
    const QStringList cc = QString::fromStdString(info.gpu_compute_capability).split(QLatin1Char('.'));
    if (cc.size() == 2) {
        major = cc[0].toInt();
        minor = cc[1].toInt();
    }
    if (info.gpu.empty() || info.gpu == "none")
        return std::nullopt;
    return find_gpu_spec(info.gpu, major, minor);
}

}  // namespace

RooflinePage::RooflinePage(QWidget* parent) : Page(parent)
{
    setObjectName(QStringLiteral("rooflinePage"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    auto* bar = new QHBoxLayout;
    m_kernelCombo = new QComboBox;
    m_kernelCombo->setObjectName(QStringLiteral("rooflineKernelCombo"));
    m_kernelCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_kernelCombo->addItem(tr("All kernels"), QString());
    m_dtypeCombo = new QComboBox;
    m_dtypeCombo->setObjectName(QStringLiteral("rooflineDtypeCombo"));
    for (const char* d : {"bf16", "fp16", "fp8", "tf32", "fp32"})
        m_dtypeCombo->addItem(QString::fromLatin1(d), QString::fromLatin1(d));
    m_viewCombo = new QComboBox;
    m_viewCombo->setObjectName(QStringLiteral("rooflineViewCombo"));
    m_viewCombo->addItem(tr("FLOP/s view"), int(RooflinePlot::View::Flops));
    m_viewCombo->addItem(tr("Bytes/s view"), int(RooflinePlot::View::Bytes));
    auto* dtypeLabel = new QLabel(tr("&Roofs for:"));
    dtypeLabel->setBuddy(m_dtypeCombo);
    bar->addWidget(m_kernelCombo);
    bar->addWidget(dtypeLabel);
    bar->addWidget(m_dtypeCombo);
    bar->addWidget(m_viewCombo);
    bar->addSpacing(12);
    for (Outcome outcome : kOutcomes) {
        auto* box = new QCheckBox(OutcomeStyle::outcomeName(outcome));
        box->setChecked(true);
        m_outcomeBoxes.insert(static_cast<int>(outcome), box);
        bar->addWidget(box);
        connect(box, &QCheckBox::toggled, this, [this, outcome](bool on) {
            m_plot->setOutcomeVisible(outcome, on);
            m_countLabel->setText(tr("%n point(s) shown", nullptr, m_plot->shownCount()));
        });
    }
    bar->addStretch(1);
    m_countLabel = new QLabel;
    bar->addWidget(m_countLabel);
    layout->addLayout(bar);
    m_gpuLabel = new QLabel;
    m_gpuLabel->setObjectName(QStringLiteral("rooflineGpuLabel"));
    m_gpuLabel->setWordWrap(true);
    layout->addWidget(m_gpuLabel);
    m_plot = new RooflinePlot;
    m_plot->setObjectName(QStringLiteral("roofline"));
    layout->addWidget(m_plot, 1);

    connect(m_kernelCombo, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_plot->setKernelFilter(m_kernelCombo->itemData(index).toString());
        m_countLabel->setText(tr("%n point(s) shown", nullptr, m_plot->shownCount()));
    });
    connect(m_dtypeCombo, &QComboBox::currentIndexChanged, this, [this] { updateRoofs(); });
    connect(m_viewCombo, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_plot->setView(static_cast<RooflinePlot::View>(m_viewCombo->itemData(index).toInt()));
    });
    connect(m_plot, &RooflinePlot::experimentClicked, this, &RooflinePage::experimentActivated);
    connect(m_plot, &RooflinePlot::experimentContextMenuRequested, this, [this](int n, const QPoint& globalPos) {
        emit experimentActivated(n);
        emit experimentMenuRequested(n, globalPos);
    });
    updateRoofs();
}

QCheckBox* RooflinePage::outcomeCheckBox(Outcome outcome) const
{
    return m_outcomeBoxes.value(static_cast<int>(outcome), nullptr);
}

void RooflinePage::setDtype(const QString& dtype)
{
    const int index = m_dtypeCombo->findData(dtype);
    if (index >= 0)
        m_dtypeCombo->setCurrentIndex(index);
}

QString RooflinePage::dtype() const { return m_dtypeCombo->currentData().toString(); }

void RooflinePage::setSession(const SnapshotPtr& session, const std::vector<Experiment>& experiments)
{
    m_session = session;
    m_plot->setExperiments(session ? experiments : std::vector<Experiment>{});
    updateKernelCombo(session ? experiments : std::vector<Experiment>{}, true);
    updateRoofs();
    m_countLabel->setText(tr("%n point(s) shown", nullptr, m_plot->shownCount()));
}

void RooflinePage::setSessionReports(const SnapshotPtr& session)
{
    m_session = session;
    updateRoofs();
}

void RooflinePage::appendExperiments(const std::vector<Experiment>& added)
{
    m_plot->appendExperiments(added);
    updateKernelCombo(added, false);
    m_countLabel->setText(tr("%n point(s) shown", nullptr, m_plot->shownCount()));
}

void RooflinePage::updateKernelCombo(const std::vector<Experiment>& experiments, bool reset)
{
    std::set<QString> have;
    if (!reset) {
        for (int i = 1; i < m_kernelCombo->count(); ++i)
            have.insert(m_kernelCombo->itemData(i).toString());
    }
    std::set<QString> wanted = have;
    for (const Experiment& e : experiments)
        wanted.insert(QString::fromStdString(e.kernel_type));
    if (wanted == have && !reset)
        return;
    const QString current = m_kernelCombo->currentData().toString();
    const QSignalBlocker blocker(m_kernelCombo);
    m_kernelCombo->clear();
    m_kernelCombo->addItem(tr("All kernels"), QString());
    for (const QString& k : wanted)
        m_kernelCombo->addItem(k, k);
    const int index = m_kernelCombo->findData(current);
    m_kernelCombo->setCurrentIndex(index >= 0 ? index : 0);
    m_plot->setKernelFilter(m_kernelCombo->currentData().toString());
}

void RooflinePage::setSelection(int selected, int compare)
{
    Q_UNUSED(compare);
    if (selected != m_plot->selectedExperiment())
        m_plot->selectExperiment(selected);
}

void RooflinePage::setProfile(const ProfilePtr& profile)
{
    m_profile = profile;
    // The profile's largest groups whose shapes give an achieved rate (the breakdown's headroom).
    std::vector<RooflinePlot::ExtraPoint> points;
    if (profile && profile->breakdown) {
        for (const profile::BreakdownGroup& g : profile->breakdown->groups) {
            if (points.size() >= kProfilePoints)
                break;
            if (!g.headroom || g.headroom->achieved_tflops <= 0 || g.headroom->achieved_gb_s <= 0)
                continue;
            points.push_back({tr("%1 %2 (%3 %)").arg(QString::fromStdString(g.type_label), QString::fromStdString(g.op),
                                                     number(g.share * 100.0, 1)),
                              g.headroom->achieved_tflops * 1000.0 / g.headroom->achieved_gb_s,
                              g.headroom->achieved_tflops});
        }
    }
    m_plot->setExtraPoints(points);
    updateRoofs();
}

void RooflinePage::updateRoofs()
{
    m_roofs.clear();
    m_ridge = 0;
    const std::optional<DType> chosen = parse_dtype(dtype().toStdString());
    const std::optional<GpuSpec> spec = m_session ? specOf(m_session->info) : std::nullopt;
    if (!spec || !chosen) {
        m_gpuLabel->setText(m_session ? tr("No datasheet numbers for the session's GPU (“%1”): no roofs are drawn.")
                                            .arg(QString::fromStdString(m_session->info.gpu))
                                      : tr("Open a session to see its experiments on the roofline."));
        m_plot->setRoofs(m_roofs, 0);
        return;
    }
    using Kind = RooflinePlot::Roof::Kind;
    m_roofs.push_back({Kind::Memory, spec->bandwidth_gb_s,
                       tr("%1 %2 TB/s (datasheet)").arg(QString::fromStdString(spec->memory),
                                                         number(spec->bandwidth_gb_s / 1000.0, 2)),
                       false});
    const QString dtypeName = QString::fromStdString(std::string(to_string(*chosen)));
    if (spec->supports(*chosen)) {
        const double peak = spec->peak_tflops(*chosen);
        m_roofs.push_back({Kind::Compute, peak,
                           *chosen == DType::fp32 ? tr("CUDA cores fp32 %1 TFLOP/s (datasheet)").arg(number(peak, 1))
                                                 : tr("tensor cores %1 %2 TFLOP/s (datasheet)").arg(dtypeName, number(peak, 1)),
                           false});
        m_ridge = ridge_point(datasheet_ceilings(*spec, *chosen));
    }
    if (*chosen != DType::fp32 && spec->fp32_tflops)
        m_roofs.push_back({Kind::Compute, *spec->fp32_tflops,
                           tr("CUDA cores fp32 %1 TFLOP/s (datasheet)").arg(number(*spec->fp32_tflops, 1)), false});
    // Measured ceilings: the open profile's (recorded with it), else the session's ceilings.json.
    const MeasuredCeilings* measured = nullptr;
    QString measuredNote;
    if (m_profile && m_profile->data && m_profile->data->ceilings) {
        measured = &*m_profile->data->ceilings;
        measuredNote = tr("measured ceilings from the profile (%1)").arg(QString::fromStdString(measured->device_name));
    } else if (m_session && m_session->ceilings) {
        measured = m_session->ceilings.get();
        measuredNote = tr("measured ceilings from the session’s ceilings.json (%1, %2)")
                           .arg(QString::fromStdString(measured->device_name), QString::fromStdString(measured->measured_utc));
    } else if (m_session && !m_session->ceilingsError.isEmpty()) {
        measuredNote = tr("no measured ceilings: the session’s ceilings.json could not be read (%1)").arg(m_session->ceilingsError);
    } else {
        measuredNote = tr("no measured ceilings: neither the profile nor the session has any (on the GPU: “autokernel "
                          "ceilings --json > SESSION/ceilings.json”, or a profile recorded with them)");
    }
    if (measured) {
        double copy = 0;
        for (const auto& [bytes, gb_s] : measured->copy_gb_s)
            copy = std::max(copy, gb_s);
        if (copy > 0)
            m_roofs.push_back({Kind::Memory, copy, tr("copy %1 TB/s (measured)").arg(number(copy / 1000.0, 2)), true});
        const auto gemm = measured->gemm_tflops.find(*chosen);
        if (gemm != measured->gemm_tflops.end() && gemm->second > 0)
            m_roofs.push_back({Kind::Compute, gemm->second,
                               tr("GEMM %1 %2 TFLOP/s (measured)").arg(dtypeName, number(gemm->second, 0)), true});
    }
    m_gpuLabel->setText(tr("%1 (%2)%3 · ridge point %4 FLOP/byte · %5")
                            .arg(QString::fromStdString(spec->model), QString::fromStdString(spec->name),
                                 spec->approximate() ? tr(", approximate: %1").arg(QString::fromStdString(spec->match_note))
                                                     : QString(),
                                 number(m_ridge, 0), measuredNote));
    m_plot->setRoofs(m_roofs, m_ridge);
}

}  // namespace ak
