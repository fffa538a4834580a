#include "app/profile_loader.h"

#include "profile/profile_json.h"
#include "util/error.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QThread>

namespace ak {

ProfilePtr analyseProfile(const QString& path)
{
    QElapsedTimer timer;
    timer.start();
    auto data = std::make_shared<profile::Profile>(profile::read_profile_json(path.toStdString()));
    auto analysis = std::make_shared<ProfileDocument>();
    analysis->path = path;
    analysis->readMs = timer.restart();
    analysis->breakdown = std::make_shared<profile::Breakdown>(profile::compute_breakdown(*data));
    for (const profile::KernelRecord& k : data->kernels) {
        const QString name = QString::fromStdString(k.name);
        if (analysis->launches.contains(name))
            continue;
        KernelLaunchInfo info;
        info.grid = k.grid;
        info.block = k.block;
        info.registers_per_thread = k.registers_per_thread;
        info.shared_memory_bytes = k.static_smem_bytes + k.dynamic_smem_bytes;
        analysis->launches.insert(name, info);
    }
    analysis->analysisMs = timer.elapsed();
    analysis->data = std::move(data);
    return analysis;
}

ProfileLoader::ProfileLoader(QObject* parent) : QObject(parent)
{
}

ProfileLoader::~ProfileLoader()
{
    // A reader still running finishes first (its answer is then dropped with this object).
    for (const QPointer<QThread>& thread : m_threads) {
        if (thread)
            thread->wait();
    }
}

quint64 ProfileLoader::open(const QString& path)
{
    const quint64 id = m_nextId++;
    m_pending = id;
    QPointer<ProfileLoader> self(this);
    QThread* thread = QThread::create([self, id, path] {
        ProfilePtr analysis;
        QString error;
        try {
            analysis = analyseProfile(path);
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        // Back on the loader's thread; dropped when the loader is gone or a newer request exists.
        QObject* target = self.data();
        if (!target)
            return;
        QMetaObject::invokeMethod(
            target,
            [self, id, path, analysis, error] {
                if (!self || self->m_pending != id)
                    return;
                self->m_pending = 0;
                if (analysis)
                    emit self->loaded(analysis);
                else
                    emit self->failed(path, error);
            },
            Qt::QueuedConnection);
    });
    connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    std::erase_if(m_threads, [](const QPointer<QThread>& t) { return t.isNull(); });
    m_threads.emplace_back(thread);
    thread->start();
    return id;
}

}  // namespace ak
