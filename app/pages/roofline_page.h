#pragma once
// The Roofline page: every experiment of the session on the roofline of the session's GPU
// (widgets/roofline_plot), with the roofs of one dtype at a time.
//
// Roofs: from the GPU spec table (core/analysis/gpu_specs, looked up by the session's GPU name and
// compute capability): the HBM bandwidth, the tensor-core peak of the chosen dtype and the CUDA-core
// FP32 peak, and the ridge point of the dtype (core/analysis/roofline). Measured ceilings (copy
// bandwidth, GEMM throughput of the dtype) are drawn as separate, dashed roofs when the open profile
// carries the recording GPU's measured ceilings, else when the session has a ceilings.json
// (session/session_ceilings.h, `autokernel ceilings --json`; re-read when it changes on disk); the
// label says which, or where they would come from. The page's bar filters by kernel and outcome and
// switches between the FLOP/s and the bytes/s view; a click on a point selects the experiment on
// every page. With a profile open, its twelve largest groups that have an achieved rate (the
// breakdown's headroom at the group's shapes) are labelled diamonds.
#include "app/pages/page.h"
#include "widgets/roofline_plot.h"

#include <QHash>

class QCheckBox;
class QComboBox;
class QLabel;

namespace ak {

class RooflinePage : public Page {
    Q_OBJECT
public:
    explicit RooflinePage(QWidget* parent = nullptr);

    void setSession(const SnapshotPtr& session, const std::vector<Experiment>& experiments) override;
    void appendExperiments(const std::vector<Experiment>& added) override;
    void setSessionReports(const SnapshotPtr& session) override;
    void setSelection(int selected, int compare) override;
    void setProfile(const ProfilePtr& profile) override;

    // The dtype whose roofs are drawn ("bf16", "fp16", "fp32", "tf32", "fp8").
    void setDtype(const QString& dtype);
    QString dtype() const;
    // The roofs drawn now (for tests).
    const std::vector<RooflinePlot::Roof>& roofs() const { return m_roofs; }
    double ridge() const { return m_ridge; }

    RooflinePlot* plot() const { return m_plot; }
    QComboBox* kernelCombo() const { return m_kernelCombo; }
    QComboBox* dtypeCombo() const { return m_dtypeCombo; }
    QComboBox* viewCombo() const { return m_viewCombo; }
    QCheckBox* outcomeCheckBox(Outcome outcome) const;
    QLabel* gpuLabel() const { return m_gpuLabel; }

private:
    void updateRoofs();
    void updateKernelCombo(const std::vector<Experiment>& experiments, bool reset);

    SnapshotPtr m_session;
    ProfilePtr m_profile;
    std::vector<RooflinePlot::Roof> m_roofs;
    double m_ridge = 0;
    RooflinePlot* m_plot = nullptr;
    QComboBox* m_kernelCombo = nullptr;
    QComboBox* m_dtypeCombo = nullptr;
    QComboBox* m_viewCombo = nullptr;
    QHash<int, QCheckBox*> m_outcomeBoxes;
    QLabel* m_gpuLabel = nullptr;
    QLabel* m_countLabel = nullptr;
};

}  // namespace ak
