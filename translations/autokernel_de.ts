<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>OutcomeStyle</name>
    <message>
        <source>baseline</source>
        <translation>Basis</translation>
    </message>
    <message>
        <source>kept</source>
        <translation>behalten</translation>
    </message>
    <message>
        <source>reverted</source>
        <translation>verworfen</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>fehlgeschlagen</translation>
    </message>
    <message>
        <source>PASS</source>
        <extracomment>correctness value in results.tsv; may stay untranslated</extracomment>
        <translation>BESTANDEN</translation>
    </message>
    <message>
        <source>FAIL</source>
        <extracomment>correctness value in results.tsv; may stay untranslated</extracomment>
        <translation>FEHLERHAFT</translation>
    </message>
    <message>
        <source>TIMEOUT</source>
        <extracomment>correctness value in results.tsv; may stay untranslated</extracomment>
        <translation>ZEITLIMIT</translation>
    </message>
    <message>
        <source>CRASH</source>
        <extracomment>correctness value in results.tsv; may stay untranslated</extracomment>
        <translation>ABSTURZ</translation>
    </message>
    <message>
        <source>memory</source>
        <translation>Speicher</translation>
    </message>
    <message>
        <source>compute</source>
        <translation>Rechenleistung</translation>
    </message>
</context>
<context>
    <name>ak::AgentPanel</name>
    <message>
        <source>Idle</source>
        <translation>Untätig</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>Läuft</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>Angehalten</translation>
    </message>
    <message>
        <source>Stopping</source>
        <translation>Wird beendet</translation>
    </message>
    <message>
        <source>Finished</source>
        <translation>Fertig</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>Protokoll</translation>
    </message>
    <message>
        <source>Loop</source>
        <translation>Schleife</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>Starten</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Anhalten</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>Einzelschritt</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>Beenden</translation>
    </message>
    <message>
        <source>Pause after the experiment in flight</source>
        <translation>Nach dem laufenden Experiment anhalten</translation>
    </message>
    <message>
        <source>Finish and record the experiment in flight, then stop</source>
        <translation>Das laufende Experiment abschließen und aufzeichnen, dann beenden</translation>
    </message>
    <message>
        <source>State:</source>
        <translation>Zustand:</translation>
    </message>
    <message>
        <source>Kernel:</source>
        <translation>Kernel:</translation>
    </message>
    <message>
        <source>Experiment:</source>
        <translation>Experiment:</translation>
    </message>
    <message>
        <source>Agent</source>
        <translation>Agent</translation>
    </message>
    <message>
        <source>Search (built in, offline)</source>
        <translation>Suche (eingebaut, offline)</translation>
    </message>
    <message>
        <source>LLM (OpenAI-compatible endpoint)</source>
        <translation>LLM (OpenAI-kompatibler Endpunkt)</translation>
    </message>
    <message>
        <source>Command (your own tool)</source>
        <translation>Befehl (eigenes Werkzeug)</translation>
    </message>
    <message>
        <source>Sweep: tier by tier</source>
        <translation>Durchlauf: Stufe für Stufe</translation>
    </message>
    <message>
        <source>Evolve: global search</source>
        <translation>Evolution: globale Suche</translation>
    </message>
    <message>
        <source>random</source>
        <translation>zufällig</translation>
    </message>
    <message>
        <source>Seed of the evolve strategy&apos;s random choices; the same seed repeats a run</source>
        <translation>Startwert der Zufallsentscheidungen der Evolutionsstrategie; derselbe Startwert wiederholt einen Lauf</translation>
    </message>
    <message>
        <source>Strategy:</source>
        <translation>Strategie:</translation>
    </message>
    <message>
        <source>Seed:</source>
        <translation>Startwert:</translation>
    </message>
    <message>
        <source>The name of the environment variable that holds the API key. The key itself is never entered, stored or logged here.</source>
        <translation>Der Name der Umgebungsvariablen, die den API-Schlüssel enthält. Der Schlüssel selbst wird hier nie eingegeben, gespeichert oder protokolliert.</translation>
    </message>
    <message>
        <source> s</source>
        <translation> s</translation>
    </message>
    <message>
        <source>Endpoint:</source>
        <translation>Endpunkt:</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>Modell:</translation>
    </message>
    <message>
        <source>API key variable:</source>
        <translation>Variable des API-Schlüssels:</translation>
    </message>
    <message>
        <source>Timeout:</source>
        <translation>Zeitlimit:</translation>
    </message>
    <message>
        <source>Runs on a scratch copy of the kernel; whatever the command leaves in {file} is the candidate. {context} names a file with the playbook, the history and your hint.</source>
        <translation>Läuft auf einer Arbeitskopie des Kernels; was der Befehl in {file} hinterlässt, ist der Kandidat. {context} nennt eine Datei mit dem Playbook, dem Verlauf und Ihrem Hinweis.</translation>
    </message>
    <message>
        <source>Command:</source>
        <translation>Befehl:</translation>
    </message>
    <message>
        <source>unlimited</source>
        <translation>unbegrenzt</translation>
    </message>
    <message>
        <source> h</source>
        <translation> h</translation>
    </message>
    <message>
        <source>experiments or</source>
        <translation>Experimente oder</translation>
    </message>
    <message>
        <source>Kind:</source>
        <translation>Art:</translation>
    </message>
    <message>
        <source>Budget:</source>
        <translation>Budget:</translation>
    </message>
    <message>
        <source>Steering</source>
        <translation>Steuerung</translation>
    </message>
    <message>
        <source>Chosen by the orchestrator</source>
        <translation>Vom Orchestrator gewählt</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keine</translation>
    </message>
    <message>
        <source>The search agent sweeps only this tier of the playbook</source>
        <translation>Der Such-Agent durchläuft nur diese Stufe des Playbooks</translation>
    </message>
    <message>
        <source>Checked tunables stay at their current value</source>
        <translation>Angehakte Stellgrößen bleiben auf ihrem aktuellen Wert</translation>
    </message>
    <message>
        <source> %</source>
        <translation> %</translation>
    </message>
    <message>
        <source>A candidate is kept when it beats the best by more than this and by more than the measured noise</source>
        <translation>Ein Kandidat wird behalten, wenn er das Beste um mehr als diesen Wert und um mehr als das gemessene Rauschen übertrifft</translation>
    </message>
    <message>
        <source>off</source>
        <translation>aus</translation>
    </message>
    <message>
        <source>×</source>
        <translation>×</translation>
    </message>
    <message>
        <source>A hint for LLM and command agents, e.g. “try two rows per warp”</source>
        <translation>Ein Hinweis für LLM- und Befehls-Agenten, z. B. „versuche zwei Zeilen pro Warp“</translation>
    </message>
    <message>
        <source>Apply steering</source>
        <translation>Steuerung anwenden</translation>
    </message>
    <message>
        <source>Send these settings to the running loop; they apply after the experiment in flight</source>
        <translation>Diese Einstellungen an die laufende Schleife senden; sie gelten nach dem laufenden Experiment</translation>
    </message>
    <message>
        <source>Move on from a kernel after</source>
        <translation>Einen Kernel verlassen nach</translation>
    </message>
    <message>
        <source>Reverts in a row:</source>
        <translation>Verworfene in Folge:</translation>
    </message>
    <message>
        <source>Share of its ceiling:</source>
        <translation>Anteil an seiner Obergrenze:</translation>
    </message>
    <message>
        <source>Hours on it:</source>
        <translation>Stunden daran:</translation>
    </message>
    <message>
        <source>Speed-up over the starter:</source>
        <translation>Beschleunigung ggü. dem Startkernel:</translation>
    </message>
    <message>
        <source>Target kernel:</source>
        <translation>Ziel-Kernel:</translation>
    </message>
    <message>
        <source>Focus tier:</source>
        <translation>Fokus-Stufe:</translation>
    </message>
    <message>
        <source>Frozen tunables:</source>
        <translation>Eingefrorene Stellgrößen:</translation>
    </message>
    <message>
        <source>Keep threshold:</source>
        <translation>Schwelle zum Behalten:</translation>
    </message>
    <message>
        <source>Hint:</source>
        <translation>Hinweis:</translation>
    </message>
    <message>
        <source>none yet</source>
        <translation>noch keine</translation>
    </message>
    <message>
        <source>Start the loop with these settings</source>
        <translation>Die Schleife mit diesen Einstellungen starten</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Fortsetzen</translation>
    </message>
    <message>
        <source>Run one experiment, then pause</source>
        <translation>Ein Experiment ausführen, dann anhalten</translation>
    </message>
    <message>
        <source>Run one more experiment, then pause</source>
        <translation>Noch ein Experiment ausführen, dann anhalten</translation>
    </message>
    <message>
        <source>Not built into this program</source>
        <translation>In dieses Programm nicht eingebaut</translation>
    </message>
    <message>
        <source>none: requests carry no key</source>
        <translation>keine: Anfragen tragen keinen Schlüssel</translation>
    </message>
    <message>
        <source>set</source>
        <translation>gesetzt</translation>
    </message>
    <message>
        <source>not set</source>
        <translation>nicht gesetzt</translation>
    </message>
    <message>
        <source>Pick a target kernel to freeze its tunables.</source>
        <translation>Einen Ziel-Kernel wählen, um seine Stellgrößen einzufrieren.</translation>
    </message>
    <message>
        <source>The source of %1 is not loaded yet.</source>
        <translation>Der Quelltext von %1 ist noch nicht geladen.</translation>
    </message>
    <message>
        <source>%1 = %2 (tier %3; %4)</source>
        <translation>%1 = %2 (Stufe %3; %4)</translation>
    </message>
    <message>
        <source>The @autokernel lines of %1 have errors:
%2</source>
        <translation>Die @autokernel-Zeilen von %1 enthalten Fehler:
%2</translation>
    </message>
    <message>
        <source>%1 declares no tunables.</source>
        <translation>%1 deklariert keine Stellgrößen.</translation>
    </message>
    <message>
        <source>Tunables of %1.</source>
        <translation>Stellgrößen von %1.</translation>
    </message>
    <message>
        <source>does not apply to the sweep</source>
        <translation>gilt nicht für den Sweep</translation>
    </message>
    <message>
        <source>The sweep is a bounded search: it moves on from a kernel when every configuration was tried, not after reverts in a row</source>
        <translation>Der Sweep ist eine begrenzte Suche: Er verlässt einen Kernel, wenn jede Konfiguration versucht wurde, nicht nach verworfenen Experimenten in Folge</translation>
    </message>
</context>
<context>
    <name>ak::AppOptions</name>
    <message>
        <source>%1 needs a value.</source>
        <translation>%1 braucht einen Wert.</translation>
    </message>
    <message>
        <source>--size expects WIDTHxHEIGHT, got “%1”.</source>
        <translation>--size erwartet BREITExHÖHE, erhalten: „%1“.</translation>
    </message>
    <message>
        <source>--lang expects de or en, got “%1”.</source>
        <translation>--lang erwartet de oder en, erhalten: „%1“.</translation>
    </message>
    <message>
        <source>Unknown option “%1”.</source>
        <translation>Unbekannte Option „%1“.</translation>
    </message>
    <message>
        <source>Only one session can be opened, got “%1” and “%2”.</source>
        <translation>Es lässt sich nur eine Sitzung öffnen, angegeben wurden „%1“ und „%2“.</translation>
    </message>
    <message>
        <source>--screenshot writes a PNG file; “%1” does not end in .png.</source>
        <translation>--screenshot schreibt eine PNG-Datei; „%1“ endet nicht auf .png.</translation>
    </message>
    <message>
        <source>--page expects experiments, profile, roofline or compare, got “%1”.</source>
        <translation>--page erwartet experiments, profile, roofline oder compare, erhielt „%1“.</translation>
    </message>
    <message>
        <source>Usage: autokernel-workbench [options] [SESSION]

Browse an AutoKernel session: every experiment, its metrics, its diff and its source.

Options:
  SESSION                 session folder to open
  --demo                  open the bundled demo session
  --model-demo            open the bundled model session (llama-160m: profile, search, verify)
  --screenshot FILE.png   render the window offscreen to FILE.png and exit
  --size WIDTHxHEIGHT     screenshot size (default 1600x1000)
  --profile FILE.json     open a profile.json on the Profile page
  --page NAME             first page: experiments, profile, roofline or compare
  --lang de|en            language of the interface
  --version               print versions and exit
  --help                  print this help and exit
</source>
        <translation>Aufruf: autokernel-workbench [Optionen] [SITZUNG]

Durchsucht eine AutoKernel-Sitzung: jedes Experiment, seine Messwerte, seinen Diff und seinen Quelltext.

Optionen:
  SITZUNG                 zu öffnender Sitzungsordner
  --demo                  die mitgelieferte Demo-Sitzung öffnen
  --model-demo            die mitgelieferte Modell-Sitzung öffnen (llama-160m: Profil, Suche, Verifikation)
  --screenshot DATEI.png  das Fenster ohne Bildschirm in DATEI.png zeichnen und beenden
  --size BREITExHÖHE      Größe des Bildschirmfotos (Vorgabe 1600x1000)
  --profile DATEI.json    eine profile.json auf der Seite Profil öffnen
  --page NAME             erste Seite: experiments, profile, roofline oder compare
  --lang de|en            Sprache der Oberfläche
  --version               Versionen ausgeben und beenden
  --help                  diese Hilfe ausgeben und beenden
</translation>
    </message>
    <message>
        <source>--demo and --model-demo open different sessions; give one.</source>
        <translation>--demo und --model-demo öffnen verschiedene Sitzungen; bitte nur eine angeben.</translation>
    </message>
</context>
<context>
    <name>ak::BreakdownModel</name>
    <message>
        <source>Type / op / kernel</source>
        <translation>Typ / Op / Kernel</translation>
    </message>
    <message>
        <source>Time (µs/iter)</source>
        <translation>Zeit (µs/Iter.)</translation>
    </message>
    <message>
        <source>Share (%)</source>
        <translation>Anteil (%)</translation>
    </message>
    <message>
        <source>Calls</source>
        <translation>Aufrufe</translation>
    </message>
    <message>
        <source>Mean (µs)</source>
        <translation>Mittel (µs)</translation>
    </message>
    <message>
        <source>Grid / block</source>
        <translation>Grid / Block</translation>
    </message>
    <message>
        <source>Registers</source>
        <translation>Register</translation>
    </message>
    <message>
        <source>Shared mem (B)</source>
        <translation>Shared Mem. (B)</translation>
    </message>
    <message>
        <source>Achieved</source>
        <translation>Erreicht</translation>
    </message>
    <message>
        <source>% of ceiling</source>
        <translation>% der Obergrenze</translation>
    </message>
    <message>
        <source>Module</source>
        <translation>Modul</translation>
    </message>
    <message>
        <source>ceiling: %1</source>
        <translation>Obergrenze: %1</translation>
    </message>
    <message>
        <source>%1 GB/s</source>
        <translation>%1 GB/s</translation>
    </message>
    <message>
        <source>%1 TFLOP/s</source>
        <translation>%1 TFLOP/s</translation>
    </message>
</context>
<context>
    <name>ak::ComparePage</name>
    <message>
        <source>Latency (µs)</source>
        <translation>Latenz (µs)</translation>
    </message>
    <message>
        <source>Speed-up vs PyTorch</source>
        <translation>Beschleunigung ggü. PyTorch</translation>
    </message>
    <message>
        <source>Throughput (TFLOP/s)</source>
        <translation>Durchsatz (TFLOP/s)</translation>
    </message>
    <message>
        <source>Bandwidth (GB/s)</source>
        <translation>Bandbreite (GB/s)</translation>
    </message>
    <message>
        <source>% of peak</source>
        <translation>% des Spitzenwerts</translation>
    </message>
    <message>
        <source>Latency spread, IQR (µs)</source>
        <translation>Latenzstreuung, IQR (µs)</translation>
    </message>
    <message>
        <source>Peak VRAM (MB)</source>
        <translation>VRAM-Spitze (MB)</translation>
    </message>
    <message>
        <source>Evaluation time (s)</source>
        <translation>Auswertungsdauer (s)</translation>
    </message>
    <message>
        <source>Kernel</source>
        <translation>Kernel</translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation>Ergebnis</translation>
    </message>
    <message>
        <source>Correctness</source>
        <translation>Korrektheit</translation>
    </message>
    <message>
        <source>Bound</source>
        <translation>Begrenzt durch</translation>
    </message>
    <message>
        <source>Agent</source>
        <translation>Agent</translation>
    </message>
    <message>
        <source>Commit</source>
        <translation>Commit</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>Beschreibung</translation>
    </message>
    <message>
        <source>Verdict detail</source>
        <translation>Urteil im Detail</translation>
    </message>
    <message>
        <source>#%1 %2 (%3)</source>
        <translation>Nr. %1 %2 (%3)</translation>
    </message>
    <message>
        <source>Metric</source>
        <translation>Messgröße</translation>
    </message>
    <message>
        <source>Left</source>
        <translation>Links</translation>
    </message>
    <message>
        <source>Right</source>
        <translation>Rechts</translation>
    </message>
    <message>
        <source>Δ (right − left)</source>
        <translation>Δ (rechts − links)</translation>
    </message>
    <message>
        <source>Ratio (right / left)</source>
        <translation>Verhältnis (rechts / links)</translation>
    </message>
    <message>
        <source>Experiment #%1 is selected. Choose a second one to compare it with: ctrl-click a second row on the Experiments page, or right-click an experiment and choose “Compare with”.</source>
        <translation>Experiment #%1 ist ausgewählt. Wählen Sie ein zweites zum Vergleich: Strg-Klick auf eine zweite Zeile der Seite Experimente, oder Rechtsklick auf ein Experiment und „Vergleichen mit“.</translation>
    </message>
    <message>
        <source>Select two experiments to compare them.</source>
        <translation>Wählen Sie zwei Experimente, um sie zu vergleichen.</translation>
    </message>
    <message>
        <source>Left: %1 — right: %2</source>
        <translation>Links: %1 — rechts: %2</translation>
    </message>
    <message>
        <source>Unpin baseline #%1</source>
        <translation>Basis #%1 lösen</translation>
    </message>
    <message>
        <source>Pin #%1 as baseline</source>
        <translation>#%1 als Basis festhalten</translation>
    </message>
    <message>
        <source>Pin as baseline</source>
        <translation>Als Basis festhalten</translation>
    </message>
    <message>
        <source>Left #%1</source>
        <translation>Links #%1</translation>
    </message>
    <message>
        <source>Right #%1</source>
        <translation>Rechts #%1</translation>
    </message>
    <message>
        <source>differs</source>
        <translation>verschieden</translation>
    </message>
    <message>
        <source>Results (results.tsv)</source>
        <translation>Ergebnisse (results.tsv)</translation>
    </message>
    <message>
        <source>Per timing shape (from the experiments’ commits)</source>
        <translation>Je gemessener Tensorform (aus den Commits der Experimente)</translation>
    </message>
    <message>
        <source>Verdicts</source>
        <translation>Urteile</translation>
    </message>
    <message>
        <source>Timings per shape</source>
        <translation>Zeiten je Tensorform</translation>
    </message>
    <message>
        <source>reading…</source>
        <translation>wird gelesen…</translation>
    </message>
    <message>
        <source>not recorded</source>
        <translation>nicht aufgezeichnet</translation>
    </message>
    <message>
        <source>This experiment’s commit has no per-shape timings: it was recorded before the workbench wrote them, imported, or recorded without an evaluation.</source>
        <translation>Der Commit dieses Experiments enthält keine Zeiten je Tensorform: Er wurde aufgezeichnet, bevor die Workbench sie schrieb, importiert oder ohne Auswertung aufgezeichnet.</translation>
    </message>
    <message>
        <source>not timed</source>
        <translation>nicht gemessen</translation>
    </message>
    <message>
        <source>The evaluator timed no shape of this experiment, or not this one.</source>
        <translation>Der Evaluator hat bei diesem Experiment keine Tensorform gemessen oder nicht diese.</translation>
    </message>
    <message>
        <source>Timings</source>
        <translation>Zeiten</translation>
    </message>
    <message numerus="yes">
        <source>%n problem(s)</source>
        <translation>
            <numerusform>%n Problem</numerusform>
            <numerusform>%n Probleme</numerusform>
        </translation>
    </message>
    <message>
        <source>Damaged timing trailers</source>
        <translation>Beschädigte Zeit-Trailer</translation>
    </message>
    <message>
        <source>Latency, ours (µs)</source>
        <translation>Latenz, unsere (µs)</translation>
    </message>
    <message>
        <source>baseline</source>
        <translation>Basis</translation>
    </message>
    <message>
        <source>Latency, %1 (µs)</source>
        <translation>Latenz, %1 (µs)</translation>
    </message>
    <message>
        <source>The strongest PyTorch baseline, re-timed in each experiment’s run: its delta is run-to-run variation, not a change of ours.</source>
        <translation>Die stärkste PyTorch-Basis, in jedem Lauf neu gemessen: Ihr Δ ist Schwankung von Lauf zu Lauf, keine Änderung an unserem Kernel.</translation>
    </message>
    <message>
        <source>Speed-up vs baseline</source>
        <translation>Beschleunigung ggü. der Basis</translation>
    </message>
</context>
<context>
    <name>ak::DetailsPanel</name>
    <message>
        <source>Experiment</source>
        <translation>Experiment</translation>
    </message>
    <message>
        <source>Run tag</source>
        <translation>Lauf-Kennung</translation>
    </message>
    <message>
        <source>Kernel type</source>
        <translation>Kernel-Typ</translation>
    </message>
    <message>
        <source>Kernel file</source>
        <translation>Kernel-Datei</translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation>Ergebnis</translation>
    </message>
    <message>
        <source>Correctness</source>
        <translation>Korrektheit</translation>
    </message>
    <message>
        <source>Latency, median (µs)</source>
        <translation>Latenz, Median (µs)</translation>
    </message>
    <message>
        <source>Latency IQR (µs)</source>
        <translation>Latenz-IQR (µs)</translation>
    </message>
    <message>
        <source>Speedup vs PyTorch (×)</source>
        <translation>Beschleunigung ggü. PyTorch (×)</translation>
    </message>
    <message>
        <source>Throughput (TFLOP/s)</source>
        <translation>Durchsatz (TFLOP/s)</translation>
    </message>
    <message>
        <source>Bandwidth (GB/s)</source>
        <translation>Bandbreite (GB/s)</translation>
    </message>
    <message>
        <source>Peak of the bound resource (%)</source>
        <translation>Auslastung der begrenzenden Ressource (%)</translation>
    </message>
    <message>
        <source>Bound</source>
        <translation>Begrenzt durch</translation>
    </message>
    <message>
        <source>Peak VRAM (MB)</source>
        <translation>VRAM-Spitze (MB)</translation>
    </message>
    <message>
        <source>Agent</source>
        <translation>Agent</translation>
    </message>
    <message>
        <source>Started (UTC)</source>
        <translation>Gestartet (UTC)</translation>
    </message>
    <message>
        <source>Evaluation time (s)</source>
        <translation>Auswertungsdauer (s)</translation>
    </message>
    <message>
        <source>Commit</source>
        <translation>Commit</translation>
    </message>
    <message>
        <source>Parent commit</source>
        <translation>Eltern-Commit</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>Beschreibung</translation>
    </message>
    <message>
        <source>Detail</source>
        <translation>Einzelheiten</translation>
    </message>
    <message>
        <source>No detail recorded</source>
        <translation>Keine Einzelheiten aufgezeichnet</translation>
    </message>
    <message>
        <source>No experiment selected</source>
        <translation>Kein Experiment ausgewählt</translation>
    </message>
    <message>
        <source>Experiment %1 · %2</source>
        <translation>Experiment %1 · %2</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>unbekannt</translation>
    </message>
    <message>
        <source>(root commit)</source>
        <translation>(Wurzel-Commit)</translation>
    </message>
</context>
<context>
    <name>ak::DiffView</name>
    <message>
        <source>Whole file</source>
        <translation>Ganze Datei</translation>
    </message>
    <message numerus="yes">
        <source>Show the whole file instead of only the changes with %n line(s) of context</source>
        <translation>
            <numerusform>Die ganze Datei zeigen statt nur der Änderungen mit %n Zeile Kontext</numerusform>
            <numerusform>Die ganze Datei zeigen statt nur der Änderungen mit %n Zeilen Kontext</numerusform>
        </translation>
    </message>
    <message>
        <source>no changes</source>
        <translation>keine Änderungen</translation>
    </message>
    <message>
        <source>+%1 −%2</source>
        <translation>+%1 −%2</translation>
    </message>
</context>
<context>
    <name>ak::ExperimentTableModel</name>
    <message>
        <source>#</source>
        <extracomment>column header: experiment number</extracomment>
        <translation>Nr.</translation>
    </message>
    <message>
        <source>Kernel</source>
        <translation>Kernel</translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation>Ergebnis</translation>
    </message>
    <message>
        <source>Correctness</source>
        <translation>Korrektheit</translation>
    </message>
    <message>
        <source>Latency (µs)</source>
        <translation>Latenz (µs)</translation>
    </message>
    <message>
        <source>Speedup vs PyTorch</source>
        <translation>Beschl. ggü. PyTorch</translation>
    </message>
    <message>
        <source>TFLOP/s</source>
        <translation>TFLOP/s</translation>
    </message>
    <message>
        <source>GB/s</source>
        <translation>GB/s</translation>
    </message>
    <message>
        <source>% peak</source>
        <translation>% Spitze</translation>
    </message>
    <message>
        <source>Bound</source>
        <translation>Begrenzt durch</translation>
    </message>
    <message>
        <source>Agent</source>
        <translation>Agent</translation>
    </message>
    <message>
        <source>Started (UTC)</source>
        <translation>Gestartet (UTC)</translation>
    </message>
    <message>
        <source>Duration (s)</source>
        <translation>Dauer (s)</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>Beschreibung</translation>
    </message>
    <message>
        <source>Median kernel latency in microseconds</source>
        <translation>Median der Kernel-Latenz in Mikrosekunden</translation>
    </message>
    <message>
        <source>Speed-up against the strongest PyTorch baseline (eager or torch.compile)</source>
        <translation>Beschleunigung gegenüber der stärksten PyTorch-Referenz (eager oder torch.compile)</translation>
    </message>
    <message>
        <source>Percent of the peak of the bound resource (compute or memory bandwidth)</source>
        <translation>Prozent der Spitzenleistung der begrenzenden Ressource (Rechenleistung oder Speicherbandbreite)</translation>
    </message>
    <message>
        <source>Whether the kernel is compute- or memory-bound</source>
        <translation>Ob der Kernel durch Rechenleistung oder Speicher begrenzt ist</translation>
    </message>
    <message>
        <source>Wall-clock time of the evaluation in seconds</source>
        <translation>Gesamtdauer der Auswertung in Sekunden</translation>
    </message>
</context>
<context>
    <name>ak::ExperimentsPage</name>
    <message>
        <source>#%1 %2 (%3)</source>
        <translation>Nr. %1 %2 (%3)</translation>
    </message>
    <message>
        <source>Filter by description, kernel, agent…</source>
        <translation>Nach Beschreibung, Kernel, Agent filtern…</translation>
    </message>
    <message>
        <source>All kernels</source>
        <translation>Alle Kernels</translation>
    </message>
    <message>
        <source>Show:</source>
        <translation>Zeigen:</translation>
    </message>
    <message>
        <source>&amp;Metric:</source>
        <translation>&amp;Messgröße:</translation>
    </message>
    <message>
        <source>Select two experiments to compare them: ctrl-click a second row in the table, or right-click an experiment and choose “Compare with”.</source>
        <translation>Zwei Experimente auswählen, um sie zu vergleichen: eine zweite Tabellenzeile mit Strg-Klick wählen, oder ein Experiment mit der rechten Maustaste anklicken und „Vergleichen mit“ wählen.</translation>
    </message>
    <message>
        <source>Compare With…</source>
        <translation>Vergleichen mit…</translation>
    </message>
    <message>
        <source>Diff vs parent</source>
        <translation>Diff zum Eltern-Commit</translation>
    </message>
    <message>
        <source>Diff vs selected</source>
        <translation>Diff zum Vergleich</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>Quelltext</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>Details</translation>
    </message>
    <message>
        <source>Experiment %1 is hidden by the table&apos;s filters.</source>
        <translation>Experiment %1 ist durch die Tabellenfilter ausgeblendet.</translation>
    </message>
    <message>
        <source>(no parent)</source>
        <translation>(kein Eltern-Commit)</translation>
    </message>
    <message>
        <source>parent %1</source>
        <translation>Eltern-Commit %1</translation>
    </message>
</context>
<context>
    <name>ak::KernelEditor</name>
    <message>
        <source>user edit</source>
        <translation>eigene Änderung</translation>
    </message>
    <message>
        <source>One line recorded as the experiment&apos;s description</source>
        <translation>Eine Zeile, die als Beschreibung des Experiments aufgezeichnet wird</translation>
    </message>
    <message>
        <source>Run my edit as the next experiment</source>
        <translation>Als nächstes Experiment ausführen</translation>
    </message>
    <message>
        <source>Revert edit</source>
        <translation>Änderung verwerfen</translation>
    </message>
    <message>
        <source>Throw the edit away and show the current best again</source>
        <translation>Die Änderung verwerfen und wieder das aktuell Beste zeigen</translation>
    </message>
    <message>
        <source>Kernel:</source>
        <translation>Kernel:</translation>
    </message>
    <message>
        <source>Description:</source>
        <translation>Beschreibung:</translation>
    </message>
    <message>
        <source>A newer best of %1 arrived (experiment %2). Your edit is kept; “Revert edit” loads the new best.</source>
        <translation>Ein neueres Bestes von %1 ist eingetroffen (Experiment %2). Ihre Änderung bleibt; „Änderung verwerfen“ lädt das neue Beste.</translation>
    </message>
    <message>
        <source>A newer best of %1 arrived. Your edit is kept; “Revert edit” loads the new best.</source>
        <translation>Ein neueres Bestes von %1 ist eingetroffen. Ihre Änderung bleibt; „Änderung verwerfen“ lädt das neue Beste.</translation>
    </message>
    <message>
        <source>Submitted: your edit of %1 runs as the next experiment.</source>
        <translation>Übergeben: Ihre Änderung von %1 läuft als nächstes Experiment.</translation>
    </message>
    <message>
        <source>Run or revert your edit before switching kernels</source>
        <translation>Führen Sie Ihre Änderung aus oder verwerfen Sie sie, bevor Sie den Kernel wechseln</translation>
    </message>
    <message>
        <source>The kernel whose current best is edited</source>
        <translation>Der Kernel, dessen aktuell Bestes bearbeitet wird</translation>
    </message>
    <message>
        <source>Edit the source first: the unchanged best needs no new experiment</source>
        <translation>Zuerst den Quelltext ändern: das unveränderte Beste braucht kein neues Experiment</translation>
    </message>
    <message>
        <source>Evaluate the edited source as the next experiment of %1</source>
        <translation>Den geänderten Quelltext als nächstes Experiment von %1 auswerten</translation>
    </message>
    <message>
        <source>modified</source>
        <translation>geändert</translation>
    </message>
    <message>
        <source>current best (experiment %1)</source>
        <translation>aktuell Bestes (Experiment %1)</translation>
    </message>
    <message>
        <source>current best</source>
        <translation>aktuell Bestes</translation>
    </message>
    <message>
        <source>no kernel</source>
        <translation>kein Kernel</translation>
    </message>
    <message>
        <source>loading…</source>
        <translation>wird geladen…</translation>
    </message>
</context>
<context>
    <name>ak::LoopWorker</name>
    <message>
        <source>baseline</source>
        <translation>Basis</translation>
    </message>
    <message>
        <source>kept</source>
        <translation>behalten</translation>
    </message>
    <message>
        <source>reverted</source>
        <translation>verworfen</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>fehlgeschlagen</translation>
    </message>
    <message>
        <source> (%1 µs)</source>
        <translation> (%1 µs)</translation>
    </message>
    <message>
        <source>#%1 %2 %3%4</source>
        <translation>Nr. %1 %2 %3%4</translation>
    </message>
    <message>
        <source>#%1 %2 %3%4: %5</source>
        <translation>Nr. %1 %2 %3%4: %5</translation>
    </message>
    <message>
        <source>A loop is already running on %1.</source>
        <translation>Auf %1 läuft bereits eine Schleife.</translation>
    </message>
    <message>
        <source>session: %1</source>
        <translation>Sitzung: %1</translation>
    </message>
    <message>
        <source>The evaluation in flight was cancelled; nothing was recorded for it.</source>
        <translation>Die laufende Auswertung wurde abgebrochen; für sie wurde nichts aufgezeichnet.</translation>
    </message>
    <message>
        <source>The loop could not go on: %1</source>
        <translation>Die Schleife konnte nicht weiterlaufen: %1</translation>
    </message>
    <message>
        <source>The evaluation in flight did not finish within %1 s: cancelling it.</source>
        <translation>Die laufende Auswertung wurde nicht innerhalb von %1 s fertig: sie wird abgebrochen.</translation>
    </message>
    <message>
        <source>The loop thread did not end in time and was left to finish on its own.</source>
        <translation>Der Schleifen-Thread endete nicht rechtzeitig und wurde sich selbst überlassen.</translation>
    </message>
    <message>
        <source>No playbook for the agents (looked in: %1).</source>
        <translation>Kein Playbook für die Agenten (gesucht in: %1).</translation>
    </message>
    <message>
        <source>No kernel contract for the agents (looked for %1).</source>
        <translation>Kein Kernel-Vertrag für die Agenten (gesucht nach %1).</translation>
    </message>
</context>
<context>
    <name>ak::MainWindow</name>
    <message>
        <source>The demo session is not installed. It is expected in resources/demo-session of the source tree or in share/autokernel-workbench/demo-session of the installation.</source>
        <translation>Die Demo-Sitzung ist nicht installiert. Sie wird in resources/demo-session des Quellbaums oder in share/autokernel-workbench/demo-session der Installation erwartet.</translation>
    </message>
    <message>
        <source>No demo session</source>
        <translation>Keine Demo-Sitzung</translation>
    </message>
    <message>
        <source>&amp;Open Session…</source>
        <translation>Sitzung ö&amp;ffnen…</translation>
    </message>
    <message>
        <source>Open a session folder (session.json + git repository)</source>
        <translation>Einen Sitzungsordner öffnen (session.json + Git-Repository)</translation>
    </message>
    <message>
        <source>Open &amp;Demo Session</source>
        <translation>&amp;Demo-Sitzung öffnen</translation>
    </message>
    <message>
        <source>Open the demo session bundled with the workbench</source>
        <translation>Die mit der Workbench gelieferte Demo-Sitzung öffnen</translation>
    </message>
    <message>
        <source>&amp;Reload</source>
        <translation>&amp;Neu laden</translation>
    </message>
    <message>
        <source>Save &amp;Screenshot…</source>
        <translation>&amp;Bildschirmfoto speichern…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>System Default</source>
        <translation>Systemvorgabe</translation>
    </message>
    <message>
        <source>&amp;Follow Live Changes</source>
        <translation>Live-Änderungen &amp;verfolgen</translation>
    </message>
    <message>
        <source>Show experiments another process records while the session is open</source>
        <translation>Experimente anzeigen, die ein anderer Prozess aufzeichnet, während die Sitzung offen ist</translation>
    </message>
    <message>
        <source>Reset &amp;Plot View</source>
        <translation>&amp;Diagrammansicht zurücksetzen</translation>
    </message>
    <message>
        <source>&amp;Compare With…</source>
        <translation>&amp;Vergleichen mit…</translation>
    </message>
    <message>
        <source>Compare the selected experiment with another experiment</source>
        <translation>Das ausgewählte Experiment mit einem anderen vergleichen</translation>
    </message>
    <message>
        <source>C&amp;lear Comparison</source>
        <translation>Vergleich &amp;aufheben</translation>
    </message>
    <message>
        <source>&amp;About AutoKernel Workbench</source>
        <translation>Ü&amp;ber AutoKernel Workbench</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>&amp;Zuletzt geöffnet</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <source>Timeline &amp;Metric</source>
        <translation>&amp;Messgröße der Zeitleiste</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>&amp;Sprache</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <source>Opening %1…</source>
        <translation>Öffne %1…</translation>
    </message>
    <message>
        <source>Reloading %1…</source>
        <translation>Lade %1 neu…</translation>
    </message>
    <message>
        <source>loaded in %1 ms</source>
        <translation>geladen in %1 ms</translation>
    </message>
    <message>
        <source>Reading and reconciling the session took %1 ms; showing it took %2 ms.</source>
        <translation>Lesen und Abgleichen der Sitzung dauerte %1 ms, das Anzeigen %2 ms.</translation>
    </message>
    <message numerus="yes">
        <source>Session opened with %n warning(s).</source>
        <translation>
            <numerusform>Sitzung mit %n Warnung geöffnet.</numerusform>
            <numerusform>Sitzung mit %n Warnungen geöffnet.</numerusform>
        </translation>
    </message>
    <message>
        <source>Cannot open session</source>
        <translation>Sitzung lässt sich nicht öffnen</translation>
    </message>
    <message numerus="yes">
        <source>%n new experiment(s) recorded.</source>
        <translation>
            <numerusform>%n neues Experiment aufgezeichnet.</numerusform>
            <numerusform>%n neue Experimente aufgezeichnet.</numerusform>
        </translation>
    </message>
    <message>
        <source>Re-reading the session: %1</source>
        <translation>Sitzung wird neu gelesen: %1</translation>
    </message>
    <message>
        <source>Compare With</source>
        <translation>Vergleichen mit</translation>
    </message>
    <message>
        <source>Compare experiment %1 with experiment number:</source>
        <translation>Experiment %1 vergleichen mit Experiment Nummer:</translation>
    </message>
    <message>
        <source>No such experiment</source>
        <translation>Experiment nicht vorhanden</translation>
    </message>
    <message>
        <source>The session has no experiment %1.</source>
        <translation>Die Sitzung hat kein Experiment %1.</translation>
    </message>
    <message>
        <source>Compare #%1 with #%2</source>
        <translation>Nr. %1 mit Nr. %2 vergleichen</translation>
    </message>
    <message>
        <source>Show #%1</source>
        <translation>Nr. %1 zeigen</translation>
    </message>
    <message>
        <source>Copy Commit Hash</source>
        <translation>Commit-Hash kopieren</translation>
    </message>
    <message>
        <source>No session open</source>
        <translation>Keine Sitzung geöffnet</translation>
    </message>
    <message>
        <source>%1 experiments · %2 kept · %3 reverted · %4 failed</source>
        <translation>%1 Experimente · %2 behalten · %3 verworfen · %4 fehlgeschlagen</translation>
    </message>
    <message numerus="yes">
        <source>%n warning(s)</source>
        <translation>
            <numerusform>%n Warnung</numerusform>
            <numerusform>%n Warnungen</numerusform>
        </translation>
    </message>
    <message>
        <source>Session Warnings</source>
        <translation>Warnungen zur Sitzung</translation>
    </message>
    <message>
        <source>Repairs the session needs (the workbench opens sessions read-only and never changes them; run “autokernel session repair” to apply them):</source>
        <translation>Reparaturen, die die Sitzung braucht (die Workbench öffnet Sitzungen nur lesend und ändert sie nie; „autokernel session repair“ führt sie aus):</translation>
    </message>
    <message>
        <source>AutoKernel Workbench</source>
        <translation>AutoKernel Workbench</translation>
    </message>
    <message>
        <source>Open a session with File ▸ Open Session… (Ctrl+O)</source>
        <translation>Eine Sitzung mit Datei ▸ Sitzung öffnen… (Strg+O) öffnen</translation>
    </message>
    <message>
        <source>No recent sessions</source>
        <translation>Keine zuletzt geöffneten Sitzungen</translation>
    </message>
    <message>
        <source>Clear List</source>
        <translation>Liste leeren</translation>
    </message>
    <message>
        <source>Open Session</source>
        <translation>Sitzung öffnen</translation>
    </message>
    <message>
        <source>The window could not be rendered.</source>
        <translation>Das Fenster ließ sich nicht zeichnen.</translation>
    </message>
    <message>
        <source>Could not write “%1”.</source>
        <translation>„%1“ ließ sich nicht schreiben.</translation>
    </message>
    <message>
        <source>Save Screenshot</source>
        <translation>Bildschirmfoto speichern</translation>
    </message>
    <message>
        <source>PNG images (*.png)</source>
        <translation>PNG-Bilder (*.png)</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>%1 gespeichert</translation>
    </message>
    <message>
        <source>Screenshot failed</source>
        <translation>Bildschirmfoto fehlgeschlagen</translation>
    </message>
    <message>
        <source>The language changes the next time the workbench starts.</source>
        <translation>Die Sprache wechselt beim nächsten Start der Workbench.</translation>
    </message>
    <message>
        <source>About AutoKernel Workbench</source>
        <translation>Über AutoKernel Workbench</translation>
    </message>
    <message>
        <source>&lt;h3&gt;AutoKernel Workbench %1&lt;/h3&gt;&lt;p&gt;Browse GPU-kernel optimization sessions: every experiment is a git commit.&lt;/p&gt;&lt;table&gt;&lt;tr&gt;&lt;td&gt;Qt&lt;/td&gt;&lt;td&gt;%2&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;QCustomPlot&lt;/td&gt;&lt;td&gt;%3&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Syntax highlighter&lt;/td&gt;&lt;td&gt;%4&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;libgit2&lt;/td&gt;&lt;td&gt;%5&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</source>
        <translation>&lt;h3&gt;AutoKernel Workbench %1&lt;/h3&gt;&lt;p&gt;Sitzungen der GPU-Kernel-Optimierung durchsuchen: jedes Experiment ist ein Git-Commit.&lt;/p&gt;&lt;table&gt;&lt;tr&gt;&lt;td&gt;Qt&lt;/td&gt;&lt;td&gt;%2&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;QCustomPlot&lt;/td&gt;&lt;td&gt;%3&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Syntaxhervorhebung&lt;/td&gt;&lt;td&gt;%4&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;libgit2&lt;/td&gt;&lt;td&gt;%5&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</translation>
    </message>
    <message>
        <source>Stopping the agent loop…</source>
        <translation>Die Agenten-Schleife wird beendet…</translation>
    </message>
    <message>
        <source>Agent Loop</source>
        <translation>Agenten-Schleife</translation>
    </message>
    <message>
        <source>Kernel Editor</source>
        <translation>Kernel-Editor</translation>
    </message>
    <message>
        <source>kernel %1: %2</source>
        <translation>Kernel %1: %2</translation>
    </message>
    <message>
        <source>%1: %2 (evaluating…)</source>
        <translation>%1: %2 (wird ausgewertet…)</translation>
    </message>
    <message>
        <source>%1 is missing from the session folder.</source>
        <translation>%1 fehlt im Sitzungsordner.</translation>
    </message>
    <message>
        <source>Open a session first.</source>
        <translation>Zuerst eine Sitzung öffnen.</translation>
    </message>
    <message>
        <source>The agent loop runs on another session (%1).</source>
        <translation>Die Agenten-Schleife läuft auf einer anderen Sitzung (%1).</translation>
    </message>
    <message>
        <source>Wait until the current operation has finished.</source>
        <translation>Warten, bis der aktuelle Vorgang abgeschlossen ist.</translation>
    </message>
    <message>
        <source>Loop: %1</source>
        <translation>Schleife: %1</translation>
    </message>
    <message>
        <source>— %1 on %2 —</source>
        <translation>— %1 auf %2 —</translation>
    </message>
    <message>
        <source>one-shot operation</source>
        <translation>einmaliger Vorgang</translation>
    </message>
    <message>
        <source>loop started</source>
        <translation>Schleife gestartet</translation>
    </message>
    <message>
        <source>Your edit: %1</source>
        <translation>Ihre Änderung: %1</translation>
    </message>
    <message>
        <source>Your edit was not evaluated.</source>
        <translation>Ihre Änderung wurde nicht ausgewertet.</translation>
    </message>
    <message>
        <source>Your edit was not evaluated: %1</source>
        <translation>Ihre Änderung wurde nicht ausgewertet: %1</translation>
    </message>
    <message>
        <source>The operation did not run</source>
        <translation>Der Vorgang wurde nicht ausgeführt</translation>
    </message>
    <message>
        <source>The agent loop stopped</source>
        <translation>Die Agenten-Schleife wurde beendet</translation>
    </message>
    <message>
        <source>Queued: your edit runs after the experiment in flight.</source>
        <translation>Eingereiht: Ihre Änderung läuft nach dem laufenden Experiment.</translation>
    </message>
    <message>
        <source>Evaluating your edit of %1…</source>
        <translation>Ihre Änderung von %1 wird ausgewertet…</translation>
    </message>
    <message>
        <source>Only the last experiment (#%1) can be force-kept.</source>
        <translation>Nur das letzte Experiment (Nr. %1) lässt sich erzwungen behalten.</translation>
    </message>
    <message>
        <source>#%1 is already kept.</source>
        <translation>Nr. %1 ist bereits behalten.</translation>
    </message>
    <message>
        <source>#%1 did not pass its checks.</source>
        <translation>Nr. %1 hat seine Prüfungen nicht bestanden.</translation>
    </message>
    <message>
        <source>Force Keep #%1</source>
        <translation>Nr. %1 erzwungen behalten</translation>
    </message>
    <message>
        <source>Make #%1 the best of its kernel (recorded as a new kept experiment)</source>
        <translation>Nr. %1 zum Besten seines Kernels machen (als neues behaltenes Experiment aufgezeichnet)</translation>
    </message>
    <message>
        <source>Only the last experiment (#%1) can be force-reverted.</source>
        <translation>Nur das letzte Experiment (Nr. %1) lässt sich erzwungen verwerfen.</translation>
    </message>
    <message>
        <source>#%1 was not kept.</source>
        <translation>Nr. %1 wurde nicht behalten.</translation>
    </message>
    <message>
        <source>Force Revert #%1</source>
        <translation>Nr. %1 erzwungen verwerfen</translation>
    </message>
    <message>
        <source>Bring back the best before #%1 (recorded as a new kept experiment)</source>
        <translation>Das Beste vor Nr. %1 zurückholen (als neues behaltenes Experiment aufgezeichnet)</translation>
    </message>
    <message>
        <source>Branch From #%1</source>
        <translation>Von Nr. %1 abzweigen</translation>
    </message>
    <message>
        <source>Make #%1 the current best of its kernel and continue from it</source>
        <translation>Nr. %1 zum aktuell Besten seines Kernels machen und von dort weitermachen</translation>
    </message>
    <message>
        <source>Profile %1 opened (read in %2 ms, analysed in %3 ms).</source>
        <translation>Profil %1 geöffnet (gelesen in %2 ms, ausgewertet in %3 ms).</translation>
    </message>
    <message>
        <source>Cannot open profile</source>
        <translation>Profil kann nicht geöffnet werden</translation>
    </message>
    <message>
        <source>“%1” could not be opened:
%2</source>
        <translation>„%1“ konnte nicht geöffnet werden:
%2</translation>
    </message>
    <message>
        <source>Open &amp;Profile…</source>
        <translation>&amp;Profil öffnen…</translation>
    </message>
    <message>
        <source>Open a profile.json written by “autokernel profile”</source>
        <translation>Eine von „autokernel profile“ geschriebene profile.json öffnen</translation>
    </message>
    <message>
        <source>&amp;Page</source>
        <translation>&amp;Seite</translation>
    </message>
    <message>
        <source>&amp;Experiments</source>
        <translation>&amp;Experimente</translation>
    </message>
    <message>
        <source>&amp;Profile</source>
        <translation>&amp;Profil</translation>
    </message>
    <message>
        <source>&amp;Roofline</source>
        <translation>&amp;Roofline</translation>
    </message>
    <message>
        <source>&amp;Compare</source>
        <translation>&amp;Vergleich</translation>
    </message>
    <message>
        <source>Experiment %1 is pinned as the baseline: unpin it on the Compare page first.</source>
        <translation>Experiment %1 ist als Basis festgehalten: Lösen Sie es zuerst auf der Seite Vergleich.</translation>
    </message>
    <message>
        <source>Opening profile %1…</source>
        <translation>Öffne Profil %1…</translation>
    </message>
    <message>
        <source>Open Profile</source>
        <translation>Profil öffnen</translation>
    </message>
    <message>
        <source>Profiles (*.json)</source>
        <translation>Profile (*.json)</translation>
    </message>
    <message>
        <source>New Session Folder for %1</source>
        <translation>Neuer Sitzungsordner für %1</translation>
    </message>
    <message>
        <source>Cannot create session</source>
        <translation>Sitzung kann nicht angelegt werden</translation>
    </message>
    <message>
        <source>A session is still being created; wait for it to finish.</source>
        <translation>Es wird noch eine Sitzung angelegt; bitte warten, bis sie fertig ist.</translation>
    </message>
    <message>
        <source>Open a profile first (File ▸ Open Profile…).</source>
        <translation>Zuerst ein Profil öffnen (Datei ▸ Profil öffnen…).</translation>
    </message>
    <message>
        <source>“%1” is not one of the nine kernel types.</source>
        <translation>„%1“ ist keiner der neun Kernel-Typen.</translation>
    </message>
    <message>
        <source>Creating session %1 from %2…</source>
        <translation>Sitzung %1 wird aus %2 angelegt…</translation>
    </message>
    <message>
        <source>The session “%1” could not be created:
%2</source>
        <translation>Die Sitzung „%1“ konnte nicht angelegt werden:
%2</translation>
    </message>
    <message>
        <source>verify.json or ceilings.json of the session changed and was read again.</source>
        <translation>verify.json oder ceilings.json der Session hat sich geändert und wurde neu gelesen.</translation>
    </message>
    <message>
        <source>The model session is not installed. It is expected in resources/model-session of the source tree or in share/autokernel-workbench/model-session of the installation.</source>
        <translation>Die Modell-Sitzung ist nicht installiert. Sie wird in resources/model-session des Quellbaums oder in share/autokernel-workbench/model-session der Installation erwartet.</translation>
    </message>
    <message>
        <source>Open &amp;Model Session (llama-160m)</source>
        <translation>&amp;Modell-Sitzung öffnen (llama-160m)</translation>
    </message>
    <message>
        <source>Open the bundled llama-160m session: profiled, searched and verified end to end on an H200</source>
        <translation>Die mitgelieferte llama-160m-Sitzung öffnen: auf einer H200 profiliert, durchsucht und von Ende zu Ende verifiziert</translation>
    </message>
    <message>
        <source>No model session</source>
        <translation>Keine Modell-Sitzung</translation>
    </message>
</context>
<context>
    <name>ak::ProfilePage</name>
    <message>
        <source>Open Profile…</source>
        <translation>Profil öffnen…</translation>
    </message>
    <message>
        <source>Filter by type, op or kernel name…</source>
        <translation>Nach Typ, Op oder Kernelname filtern…</translation>
    </message>
    <message>
        <source>What if a kernel type were faster?</source>
        <translation>Was wäre, wenn ein Kerneltyp schneller wäre?</translation>
    </message>
    <message>
        <source>&amp;Type:</source>
        <translation>&amp;Typ:</translation>
    </message>
    <message>
        <source>&amp;Speed-up:</source>
        <translation>&amp;Beschleunigung:</translation>
    </message>
    <message>
        <source>Measured</source>
        <translation>Gemessen</translation>
    </message>
    <message>
        <source>Reset all</source>
        <translation>Alle zurücksetzen</translation>
    </message>
    <message>
        <source>%1 (%2 %)</source>
        <translation>%1 (%2 %)</translation>
    </message>
    <message>
        <source>No profile open: File ▸ Open Profile… (a profile.json written by “autokernel profile”).</source>
        <translation>Kein Profil geöffnet: Datei ▸ Profil öffnen… (eine von „autokernel profile“ geschriebene profile.json).</translation>
    </message>
    <message>
        <source>Profile: %1</source>
        <translation>Profil: %1</translation>
    </message>
    <message>
        <source>GPU busy %1 ms of %2 ms wall per iteration · idle %3 % · %4 kernel launches · %5 % of kernel time attributed to an op · %6 % in the nine kernel types</source>
        <translation>GPU beschäftigt %1 ms von %2 ms Wanduhrzeit je Iteration · untätig %3 % · %4 Kernelstarts · %5 % der Kernelzeit einem Op zugeordnet · %6 % in den neun Kerneltypen</translation>
    </message>
    <message>
        <source>Measured %1×</source>
        <translation>Gemessen %1×</translation>
    </message>
    <message>
        <source>The session&apos;s best speed-up of %1 over PyTorch</source>
        <translation>Die beste Beschleunigung von %1 gegenüber PyTorch in der Sitzung</translation>
    </message>
    <message>
        <source>The open session has no passing kept experiment of this type</source>
        <translation>Die offene Sitzung hat kein bestandenes, behaltenes Experiment dieses Typs</translation>
    </message>
    <message>
        <source>Open a profile to project what a faster kernel buys end to end.</source>
        <translation>Öffnen Sie ein Profil, um hochzurechnen, was ein schnellerer Kernel insgesamt bringt.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Projected end to end: %1×&lt;/b&gt; (%2)&lt;br&gt;%3 takes %4 % of GPU time: %5× makes the model %6× faster; even if it took no time at all, at most %7×.</source>
        <translation>&lt;b&gt;Hochgerechnet insgesamt: %1×&lt;/b&gt; (%2)&lt;br&gt;%3 braucht %4 % der GPU-Zeit: %5× macht das Modell %6× schneller; selbst ohne jede Zeit höchstens %7×.</translation>
    </message>
    <message>
        <source>no speed-up chosen</source>
        <translation>keine Beschleunigung gewählt</translation>
    </message>
    <message>
        <source>group %1</source>
        <translation>Gruppe %1</translation>
    </message>
    <message>
        <source>other groups</source>
        <translation>übrige Gruppen</translation>
    </message>
    <message>
        <source>GPU time (µs per iteration), stacked by group</source>
        <translation>GPU-Zeit (µs je Iteration), nach Gruppen gestapelt</translation>
    </message>
    <message>
        <source>now</source>
        <translation>jetzt</translation>
    </message>
    <message>
        <source>with the chosen speed-ups</source>
        <translation>mit den gewählten Beschleunigungen</translation>
    </message>
    <message>
        <source>µs per iteration</source>
        <translation>µs je Iteration</translation>
    </message>
    <message>
        <source>limit %1×</source>
        <translation>Grenze %1×</translation>
    </message>
    <message>
        <source>speed-up of %1 (×)</source>
        <translation>Beschleunigung von %1 (×)</translation>
    </message>
    <message>
        <source>end to end (×)</source>
        <translation>insgesamt (×)</translation>
    </message>
    <message>
        <source>Open the Session’s Profile</source>
        <translation>Profil der Sitzung öffnen</translation>
    </message>
    <message>
        <source>Optimize Selected…</source>
        <translation>Auswahl optimieren…</translation>
    </message>
    <message>
        <source>Open a profile and select kernel types in the tree to make a session of them</source>
        <translation>Ein Profil öffnen und Kernel-Typen im Baum auswählen, um daraus eine Sitzung zu machen</translation>
    </message>
    <message>
        <source>Make a new session that optimizes %1, as “autokernel new --from-profile” does</source>
        <translation>Eine neue Sitzung anlegen, die %1 optimiert, wie „autokernel new --from-profile“</translation>
    </message>
    <message>
        <source>The profile this session was made from is open: %1</source>
        <translation>Das Profil, aus dem diese Sitzung entstand, ist geöffnet: %1</translation>
    </message>
    <message>
        <source>Open the profile this session was made from: %1</source>
        <translation>Das Profil öffnen, aus dem diese Sitzung entstand: %1</translation>
    </message>
    <message>
        <source>verify.json could not be read: %1</source>
        <translation>verify.json konnte nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>%1×</source>
        <translation>%1×</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>unbekannt</translation>
    </message>
    <message>
        <source>&lt;b&gt;Measured end to end: %1×&lt;/b&gt; (autokernel verify, %2, %3) · predicted from the session’s kernel speed-ups %4 · projected here %5×</source>
        <translation>&lt;b&gt;Gemessen Ende zu Ende: %1×&lt;/b&gt; (autokernel verify, %2, %3) · vorhergesagt aus den Kernel-Beschleunigungen der Sitzung %4 · hier hochgerechnet %5×</translation>
    </message>
    <message>
        <source>autokernel verify (%1): %2, no end-to-end measurement. %3</source>
        <translation>autokernel verify (%1): %2, keine Ende-zu-Ende-Messung. %3</translation>
    </message>
</context>
<context>
    <name>ak::RooflinePage</name>
    <message>
        <source>All kernels</source>
        <translation>Alle Kernels</translation>
    </message>
    <message>
        <source>FLOP/s view</source>
        <translation>FLOP/s-Ansicht</translation>
    </message>
    <message>
        <source>Bytes/s view</source>
        <translation>Bytes/s-Ansicht</translation>
    </message>
    <message>
        <source>&amp;Roofs for:</source>
        <translation>&amp;Dächer für:</translation>
    </message>
    <message numerus="yes">
        <source>%n point(s) shown</source>
        <translation>
            <numerusform>%n Punkt angezeigt</numerusform>
            <numerusform>%n Punkte angezeigt</numerusform>
        </translation>
    </message>
    <message>
        <source>No datasheet numbers for the session&apos;s GPU (“%1”): no roofs are drawn.</source>
        <translation>Keine Datenblattwerte für die GPU der Sitzung („%1“): Es werden keine Dächer gezeichnet.</translation>
    </message>
    <message>
        <source>Open a session to see its experiments on the roofline.</source>
        <translation>Öffnen Sie eine Sitzung, um ihre Experimente auf der Roofline zu sehen.</translation>
    </message>
    <message>
        <source>%1 %2 TB/s (datasheet)</source>
        <translation>%1 %2 TB/s (Datenblatt)</translation>
    </message>
    <message>
        <source>CUDA cores fp32 %1 TFLOP/s (datasheet)</source>
        <translation>CUDA-Kerne fp32 %1 TFLOP/s (Datenblatt)</translation>
    </message>
    <message>
        <source>tensor cores %1 %2 TFLOP/s (datasheet)</source>
        <translation>Tensorkerne %1 %2 TFLOP/s (Datenblatt)</translation>
    </message>
    <message>
        <source>copy %1 TB/s (measured)</source>
        <translation>Kopie %1 TB/s (gemessen)</translation>
    </message>
    <message>
        <source>GEMM %1 %2 TFLOP/s (measured)</source>
        <translation>GEMM %1 %2 TFLOP/s (gemessen)</translation>
    </message>
    <message>
        <source>measured ceilings from the profile (%1)</source>
        <translation>gemessene Obergrenzen aus dem Profil (%1)</translation>
    </message>
    <message>
        <source>%1 (%2)%3 · ridge point %4 FLOP/byte · %5</source>
        <translation>%1 (%2)%3 · Knickpunkt %4 FLOP/Byte · %5</translation>
    </message>
    <message>
        <source>, approximate: %1</source>
        <translation>, ungefähr: %1</translation>
    </message>
    <message>
        <source>%1 %2 (%3 %)</source>
        <translation>%1 %2 (%3 %)</translation>
    </message>
    <message>
        <source>measured ceilings from the session’s ceilings.json (%1, %2)</source>
        <translation>gemessene Obergrenzen aus der ceilings.json der Session (%1, %2)</translation>
    </message>
    <message>
        <source>no measured ceilings: the session’s ceilings.json could not be read (%1)</source>
        <translation>keine gemessenen Obergrenzen: Die ceilings.json der Session ließ sich nicht lesen (%1)</translation>
    </message>
    <message>
        <source>no measured ceilings: neither the profile nor the session has any (on the GPU: “autokernel ceilings --json &gt; SESSION/ceilings.json”, or a profile recorded with them)</source>
        <translation>keine gemessenen Obergrenzen: weder das Profil noch die Session enthält welche (auf der GPU: „autokernel ceilings --json &gt; SESSION/ceilings.json“ oder ein damit aufgezeichnetes Profil)</translation>
    </message>
</context>
<context>
    <name>ak::RooflinePlot</name>
    <message>
        <source>Arithmetic intensity (FLOP/byte)</source>
        <translation>Arithmetische Intensität (FLOP/Byte)</translation>
    </message>
    <message>
        <source>Achieved TFLOP/s</source>
        <translation>Erreichte TFLOP/s</translation>
    </message>
    <message>
        <source>PyTorch baseline</source>
        <translation>PyTorch-Basis</translation>
    </message>
    <message>
        <source>profile groups</source>
        <translation>Profilgruppen</translation>
    </message>
    <message>
        <source>Achieved GB/s</source>
        <translation>Erreichte GB/s</translation>
    </message>
    <message>
        <source>ridge %1 FLOP/B</source>
        <translation>Knick %1 FLOP/B</translation>
    </message>
    <message>
        <source>#%1 %2 (%3)</source>
        <translation>Nr. %1 %2 (%3)</translation>
    </message>
    <message>
        <source>intensity %1 FLOP/B · %2 TFLOP/s · %3 GB/s</source>
        <translation>Intensität %1 FLOP/B · %2 TFLOP/s · %3 GB/s</translation>
    </message>
    <message>
        <source>latency %1 µs</source>
        <translation>Latenz %1 µs</translation>
    </message>
    <message>
        <source> · %1× vs PyTorch</source>
        <translation> · %1× ggü. PyTorch</translation>
    </message>
    <message>
        <source> · %1% of peak</source>
        <translation> · %1 % des Spitzenwerts</translation>
    </message>
</context>
<context>
    <name>ak::Screenshot</name>
    <message>
        <source>Timed out after %1 s waiting for the session to load.</source>
        <translation>Nach %1 s Warten auf das Laden der Sitzung abgebrochen.</translation>
    </message>
    <message>
        <source>The window is %1×%2, not the requested %3×%4 (too small?).</source>
        <translation>Das Fenster ist %1×%2 groß statt der verlangten %3×%4 (zu klein?).</translation>
    </message>
</context>
<context>
    <name>ak::SessionLoader</name>
    <message>
        <source>“%1” is not an AutoKernel session (it needs session.json and a git repository).</source>
        <translation>„%1“ ist keine AutoKernel-Sitzung (dazu gehören session.json und ein Git-Repository).</translation>
    </message>
    <message>
        <source>Something the session “%1” refers to does not exist.</source>
        <translation>Etwas, auf das die Sitzung „%1“ verweist, existiert nicht.</translation>
    </message>
    <message>
        <source>The session “%1” has a malformed file.</source>
        <translation>Die Sitzung „%1“ enthält eine fehlerhafte Datei.</translation>
    </message>
    <message>
        <source>The session “%1” contains text that is not valid UTF-8.</source>
        <translation>Die Sitzung „%1“ enthält Text, der kein gültiges UTF-8 ist.</translation>
    </message>
    <message>
        <source>The session “%1” has no experiments.</source>
        <translation>Die Sitzung „%1“ enthält keine Experimente.</translation>
    </message>
    <message>
        <source>The git repository of the session “%1” could not be read.</source>
        <translation>Das Git-Repository der Sitzung „%1“ ließ sich nicht lesen.</translation>
    </message>
    <message>
        <source>The session “%1” could not be read.</source>
        <translation>Die Sitzung „%1“ ließ sich nicht lesen.</translation>
    </message>
    <message>
        <source>The session “%1” could not be opened.</source>
        <translation>Die Sitzung „%1“ ließ sich nicht öffnen.</translation>
    </message>
    <message>
        <source>Unknown error while reading new experiments.</source>
        <translation>Unbekannter Fehler beim Lesen neuer Experimente.</translation>
    </message>
    <message>
        <source>No session is open.</source>
        <translation>Keine Sitzung geöffnet.</translation>
    </message>
    <message>
        <source>Could not read the source of experiment %1: %2</source>
        <translation>Der Quelltext von Experiment %1 ließ sich nicht lesen: %2</translation>
    </message>
    <message>
        <source>Could not read the source of experiment %1.</source>
        <translation>Der Quelltext von Experiment %1 ließ sich nicht lesen.</translation>
    </message>
    <message>
        <source>Could not read the timings of experiment %1: %2</source>
        <translation>Die Zeiten von Experiment %1 ließen sich nicht lesen: %2</translation>
    </message>
    <message>
        <source>Could not read the timings of experiment %1.</source>
        <translation>Die Zeiten von Experiment %1 ließen sich nicht lesen.</translation>
    </message>
</context>
<context>
    <name>ak::TimelinePlot</name>
    <message>
        <source>Experiment #</source>
        <translation>Experiment Nr.</translation>
    </message>
    <message>
        <source>running best</source>
        <translation>bisher bestes</translation>
    </message>
    <message>
        <source>reverted</source>
        <translation>verworfen</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>fehlgeschlagen</translation>
    </message>
    <message>
        <source>kept</source>
        <translation>behalten</translation>
    </message>
    <message>
        <source>selected</source>
        <translation>ausgewählt</translation>
    </message>
    <message>
        <source>Speedup vs PyTorch (×)</source>
        <translation>Beschleunigung ggü. PyTorch (×)</translation>
    </message>
    <message>
        <source>Throughput (TFLOP/s)</source>
        <translation>Durchsatz (TFLOP/s)</translation>
    </message>
    <message>
        <source>Latency (µs)</source>
        <translation>Latenz (µs)</translation>
    </message>
    <message>
        <source>Bandwidth (GB/s)</source>
        <translation>Bandbreite (GB/s)</translation>
    </message>
    <message>
        <source>best: %1</source>
        <translation>beste: %1</translation>
    </message>
</context>
</TS>
