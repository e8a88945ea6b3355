<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>ConfigField</name>
    <message>
        <source>Dataset</source>
        <translation>Datensatz</translation>
    </message>
    <message>
        <source>Where the samples come from.</source>
        <translation>Woher die Samples stammen.</translation>
    </message>
    <message>
        <source>Path</source>
        <translation>Pfad</translation>
    </message>
    <message>
        <source>The dataset&apos;s folder or file (an image folder without a path: the generated default dataset).</source>
        <translation>Ordner oder Datei des Datensatzes (ein Bildordner ohne Pfad: der erzeugte Standarddatensatz).</translation>
    </message>
    <message>
        <source>Sample shape</source>
        <translation>Sample-Form</translation>
    </message>
    <message>
        <source>Shape of a synthetic sample, channels x height x width.</source>
        <translation>Form eines synthetischen Samples, Kanäle x Höhe x Breite.</translation>
    </message>
    <message>
        <source>Samples</source>
        <translation>Samples</translation>
    </message>
    <message>
        <source>Number of samples in the synthetic dataset.</source>
        <translation>Anzahl der Samples im synthetischen Datensatz.</translation>
    </message>
    <message>
        <source>Transform</source>
        <translation>Transformation</translation>
    </message>
    <message>
        <source>Image-folder pipeline: eval resizes and center-crops, train does a random resized crop and flip.</source>
        <translation>Pipeline für Bildordner: eval skaliert und schneidet mittig zu, train macht einen zufälligen skalierten Ausschnitt und spiegelt.</translation>
    </message>
    <message>
        <source>Decode</source>
        <translation>Dekodierung</translation>
    </message>
    <message>
        <source>Image-folder JPEGs: exact gives torchvision&apos;s pixels; fast (eval transform only) decodes at a reduced DCT scale no smaller than the resize size, then resizes: faster on large photos, not pixel-exact.</source>
        <translation>JPEGs aus Bildordnern: exact liefert die Pixel von torchvision; fast (nur Eval-Transformation) dekodiert in einer verkleinerten DCT-Skalierung, nicht kleiner als die Zielgröße, und skaliert dann: schneller bei großen Fotos, nicht pixelgenau.</translation>
    </message>
    <message>
        <source>Resize</source>
        <translation>Skalierung</translation>
    </message>
    <message>
        <source>Eval transform: the short side after resizing, in pixels.</source>
        <translation>eval-Transformation: die kurze Seite nach dem Skalieren, in Pixeln.</translation>
    </message>
    <message>
        <source>Crop</source>
        <translation>Ausschnitt</translation>
    </message>
    <message>
        <source>Side of the square crop fed to the model, in pixels.</source>
        <translation>Seitenlänge des quadratischen Ausschnitts, den das Modell erhält, in Pixeln.</translation>
    </message>
    <message>
        <source>Largest image</source>
        <translation>Größtes Bild</translation>
    </message>
    <message>
        <source>Images declaring more pixels are refused before decoding (decompression-bomb guard).</source>
        <translation>Bilder, die mehr Pixel angeben, werden vor dem Dekodieren abgewiesen (Schutz vor Dekompressionsbomben).</translation>
    </message>
    <message>
        <source>Largest file</source>
        <translation>Größte Datei</translation>
    </message>
    <message>
        <source>Image files larger than this many bytes are refused without reading them.</source>
        <translation>Bilddateien, die größer als so viele Bytes sind, werden abgewiesen, ohne sie zu lesen.</translation>
    </message>
    <message>
        <source>Batch size</source>
        <translation>Batchgröße</translation>
    </message>
    <message>
        <source>Samples per batch.</source>
        <translation>Samples pro Batch.</translation>
    </message>
    <message>
        <source>Workers</source>
        <translation>Worker</translation>
    </message>
    <message>
        <source>Worker threads loading batches; 0 loads on the model&apos;s thread (PyTorch&apos;s num_workers).</source>
        <translation>Worker-Threads, die Batches laden; 0 lädt im Thread des Modells (num_workers in PyTorch).</translation>
    </message>
    <message>
        <source>Prefetch</source>
        <translation>Prefetch</translation>
    </message>
    <message>
        <source>Batches each worker may have loaded ahead of the model (PyTorch&apos;s prefetch_factor).</source>
        <translation>Batches, die jeder Worker dem Modell vorausladen darf (prefetch_factor in PyTorch).</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>Strategie</translation>
    </message>
    <message>
        <source>Per-worker gives each batch whole to one worker like PyTorch; sample-parallel builds each batch with all workers.</source>
        <translation>per-worker gibt wie PyTorch jeden Batch ganz an einen Worker; bei sample-parallel bauen alle Worker gemeinsam jeden Batch.</translation>
    </message>
    <message>
        <source>Shuffle</source>
        <translation>Mischen</translation>
    </message>
    <message>
        <source>Visit the samples in a new random order every epoch (seeded).</source>
        <translation>Die Samples in jeder Epoche in neuer zufälliger Reihenfolge durchlaufen (mit Seed).</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>Seed</translation>
    </message>
    <message>
        <source>Seed of the shuffle and of random transforms.</source>
        <translation>Seed für das Mischen und für zufällige Transformationen.</translation>
    </message>
    <message>
        <source>Drop last</source>
        <translation>Letzten Batch verwerfen</translation>
    </message>
    <message>
        <source>Leave out the last batch of an epoch when it is incomplete.</source>
        <translation>Den letzten Batch einer Epoche auslassen, wenn er unvollständig ist.</translation>
    </message>
    <message>
        <source>Persistent workers</source>
        <translation>Persistente Worker</translation>
    </message>
    <message>
        <source>Keep the workers alive between epochs instead of starting new ones.</source>
        <translation>Die Worker zwischen den Epochen am Leben halten, statt neue zu starten.</translation>
    </message>
    <message>
        <source>Pin memory</source>
        <translation>Pinned Memory</translation>
    </message>
    <message>
        <source>Copy batches into page-locked memory for faster transfers to the GPU.</source>
        <translation>Batches in seitengesperrten Speicher (page-locked) kopieren, für schnellere Übertragungen auf die GPU.</translation>
    </message>
    <message>
        <source>In order</source>
        <translation>Der Reihe nach</translation>
    </message>
    <message>
        <source>Deliver batches in order; off hands over whichever batch is ready first (in_order=False).</source>
        <translation>Batches der Reihe nach liefern; ausgeschaltet wird der Batch übergeben, der zuerst fertig ist (in_order=False).</translation>
    </message>
    <message>
        <source>Bad samples</source>
        <translation>Fehlerhafte Samples</translation>
    </message>
    <message>
        <source>What happens to a sample that cannot be read: skip it (and record why) or fail the run.</source>
        <translation>Was mit einem Sample geschieht, das nicht gelesen werden kann: überspringen (und den Grund festhalten) oder den Lauf abbrechen.</translation>
    </message>
    <message>
        <source>Model step</source>
        <translation>Modellschritt</translation>
    </message>
    <message>
        <source>What the run does with each batch: nothing, a simulated step, or a LibTorch model.</source>
        <translation>Was der Lauf mit jedem Batch macht: nichts, einen simulierten Schritt oder ein LibTorch-Modell.</translation>
    </message>
    <message>
        <source>Step per batch</source>
        <translation>Schritt pro Batch</translation>
    </message>
    <message>
        <source>Simulated model step: milliseconds per batch, whatever its size.</source>
        <translation>Simulierter Modellschritt: Millisekunden pro Batch, unabhängig von seiner Größe.</translation>
    </message>
    <message>
        <source>Step per sample</source>
        <translation>Schritt pro Sample</translation>
    </message>
    <message>
        <source>Simulated model step: milliseconds per sample of a batch.</source>
        <translation>Simulierter Modellschritt: Millisekunden pro Sample eines Batches.</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>Built-in LibTorch model: resnet18, resnet50, mobilenet_v2, efficientnet_v2_s, vit_b_16, ...</source>
        <translation>Eingebautes LibTorch-Modell: resnet18, resnet50, mobilenet_v2, efficientnet_v2_s, vit_b_16, ...</translation>
    </message>
    <message>
        <source>Model file</source>
        <translation>Modelldatei</translation>
    </message>
    <message>
        <source>A TorchScript file to run instead of a built-in model.</source>
        <translation>Eine TorchScript-Datei, die statt eines eingebauten Modells ausgeführt wird.</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>Modus</translation>
    </message>
    <message>
        <source>Inference (forward only) or a training step (forward, backward, optimizer).</source>
        <translation>Inferenz (nur Vorwärtsdurchlauf) oder ein Trainingsschritt (Vorwärtsdurchlauf, Backward, Optimierer).</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>Gerät</translation>
    </message>
    <message>
        <source>Where the model runs: cpu, cuda or cuda:N.</source>
        <translation>Wo das Modell läuft: cpu, cuda oder cuda:N.</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>Genauigkeit</translation>
    </message>
    <message>
        <source>fp32, or bf16 / fp16 autocast (fp16 on CUDA only).</source>
        <translation>fp32 oder bf16 / fp16 per Autocast (fp16 nur mit CUDA).</translation>
    </message>
    <message>
        <source>Channels last</source>
        <translation>Channels-last</translation>
    </message>
    <message>
        <source>Model and input in channels-last memory format.</source>
        <translation>Modell und Eingabe im Speicherformat channels-last.</translation>
    </message>
    <message>
        <source>Threads</source>
        <translation>Threads</translation>
    </message>
    <message>
        <source>Intra-op threads of the model; 0 = all cores.</source>
        <translation>Intra-op-Threads des Modells; 0 = alle Kerne.</translation>
    </message>
    <message>
        <source>Checkpointing</source>
        <translation>Checkpointing</translation>
    </message>
    <message>
        <source>Activation checkpointing per stage (training step): less memory, more time.</source>
        <translation>Activation Checkpointing pro Stufe (Trainingsschritt): weniger Speicher, mehr Zeit.</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>Optimierer</translation>
    </message>
    <message>
        <source>Optimizer of the training step.</source>
        <translation>Optimierer des Trainingsschritts.</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>Lernrate</translation>
    </message>
    <message>
        <source>Learning rate of the training step.</source>
        <translation>Lernrate des Trainingsschritts.</translation>
    </message>
    <message>
        <source>Classes</source>
        <translation>Klassen</translation>
    </message>
    <message>
        <source>Model outputs; labels are taken modulo this.</source>
        <translation>Ausgaben des Modells; die Labels werden modulo dieser Zahl genommen.</translation>
    </message>
    <message>
        <source>Epochs</source>
        <translation>Epochen</translation>
    </message>
    <message>
        <source>Epochs to run; 0 = until stopped or a limit.</source>
        <translation>Anzahl der Epochen; 0 = bis zum Stoppen oder bis zu einem Limit.</translation>
    </message>
    <message>
        <source>Batch limit</source>
        <translation>Batch-Limit</translation>
    </message>
    <message>
        <source>Stop after this many batches; 0 = no limit.</source>
        <translation>Nach so vielen Batches stoppen; 0 = kein Limit.</translation>
    </message>
    <message>
        <source>Time limit</source>
        <translation>Zeitlimit</translation>
    </message>
    <message>
        <source>Stop after this many seconds, also during a long model step; 0 = no limit.</source>
        <translation>Nach so vielen Sekunden stoppen, auch während eines langen Modellschritts; 0 = kein Limit.</translation>
    </message>
    <message>
        <source>Warm-up</source>
        <translation>Aufwärmphase</translation>
    </message>
    <message>
        <source>Batches at the start left out of the throughput and wait figures.</source>
        <translation>Batches am Anfang, die nicht in die Kennzahlen für Durchsatz und Wartezeit eingehen.</translation>
    </message>
    <message>
        <source>Memory budget</source>
        <translation>Speicherbudget</translation>
    </message>
    <message>
        <source>Host memory a run may plan to use, in MiB; a setting estimated to need more is refused before it starts. 0 = the default share of this machine&apos;s memory.</source>
        <translation>Hauptspeicher, den ein Lauf einplanen darf, in MiB; eine Einstellung, die voraussichtlich mehr braucht, wird vor dem Start abgewiesen. 0 = der Standardanteil am Speicher dieses Rechners.</translation>
    </message>
    <message>
        <source>Devices</source>
        <translation>Geräte</translation>
    </message>
    <message>
        <source>Data-parallel ranks on this host, each with its own loader over a shard of every epoch, its own workers and its own model step (cuda:0..N-1 for a CUDA model, the CPU threads split for a CPU model, one simulated device each for the sleep step).</source>
        <translation>Datenparallele Ränge auf diesem Rechner, jeder mit eigenem Loader über einen Teil jeder Epoche, eigenen Workern und eigenem Modellschritt (cuda:0..N-1 für ein CUDA-Modell, die CPU-Threads aufgeteilt für ein CPU-Modell, je ein simuliertes Gerät für den Sleep-Schritt).</translation>
    </message>
    <message>
        <source>Synchronised steps</source>
        <translation>Synchronisierte Schritte</translation>
    </message>
    <message>
        <source>With several devices, every step waits for all ranks, as the gradient all-reduce of distributed training does; off: ranks run independently, as for inference.</source>
        <translation>Mit mehreren Geräten wartet jeder Schritt auf alle Ränge, wie das Gradienten-All-Reduce im verteilten Training; aus: die Ränge laufen unabhängig, wie bei der Inferenz.</translation>
    </message>
    <message>
        <source>Engine</source>
        <translation>Engine</translation>
    </message>
    <message>
        <source>Which loader runs: LoaderLab&apos;s own (threads, C++) or PyTorch&apos;s DataLoader (worker processes, Python; needs torch and torchvision).</source>
        <translation>Welcher Loader läuft: der von LoaderLab (Threads, C++) oder der DataLoader von PyTorch (Worker-Prozesse, Python; braucht torch und torchvision).</translation>
    </message>
    <message>
        <source>Pipeline arguments</source>
        <translation>Pipeline-Argumente</translation>
    </message>
    <message>
        <source>Names and values passed to a Python pipeline file&apos;s make_dataset(args) and make_step(args), e.g. --set dataset.args.size=64.</source>
        <translation>Namen und Werte, die make_dataset(args) und make_step(args) einer Python-Pipeline-Datei erhalten, z. B. --set dataset.args.size=64.</translation>
    </message>
    <message>
        <source>Pipeline argument</source>
        <translation>Pipeline-Argument</translation>
    </message>
    <message>
        <source>One name of dataset.args and its value.</source>
        <translation>Ein Name aus dataset.args und sein Wert.</translation>
    </message>
    <message>
        <source>Gradient</source>
        <translation>Gradient</translation>
    </message>
    <message>
        <source>With synchronised devices, the float32 gradient each rank all-reduces with the others after every step, in MB, as DDP averages a model&apos;s gradients (c10d&apos;s gloo on this host): ResNet-50 102.2, ResNet-18 46.8, MobileNetV2 14.0. 0 = none, the ranks only wait for each other.</source>
        <translation>Bei synchronisierten Geräten der float32-Gradient, den jeder Rang nach jedem Schritt mit den anderen per All-Reduce austauscht, in MB, so wie DDP die Gradienten eines Modells mittelt (c10d mit gloo auf diesem Rechner): ResNet-50 102,2, ResNet-18 46,8, MobileNetV2 14,0. 0 = keiner, die Ränge warten nur aufeinander.</translation>
    </message>
    <message>
        <source>Exchange backend</source>
        <translation>Austausch-Backend</translation>
    </message>
    <message>
        <source>The collective library&apos;s backend for the gradient exchange: gloo (CPU, TCP) or nccl (CUDA GPUs).</source>
        <translation>Das Backend der Kollektiv-Bibliothek für den Gradientenaustausch: gloo (CPU, TCP) oder nccl (CUDA-GPUs).</translation>
    </message>
    <message>
        <source>Replay</source>
        <translation>Wiederholen</translation>
    </message>
    <message>
        <source>After this many batches, stop loading and run the step on those batches, kept in memory, for the rest of the run: the speed with free loading. 0 = off.</source>
        <translation>Nach so vielen Batches nicht mehr laden und den Schritt für den Rest des Laufs auf diesen im Speicher gehaltenen Batches ausführen: das Tempo, wenn Laden nichts kostet. 0 = aus.</translation>
    </message>
</context>
<context>
    <name>DatasetKind</name>
    <message>
        <source>synthetic</source>
        <translation>synthetisch</translation>
    </message>
    <message>
        <source>preprocessed tensor file</source>
        <translation>vorverarbeitete Tensordatei</translation>
    </message>
    <message>
        <source>image folder</source>
        <translation>Bildordner</translation>
    </message>
    <message>
        <source>IDX (MNIST)</source>
        <translation>IDX (MNIST)</translation>
    </message>
    <message>
        <source>CIFAR-10</source>
        <translation>CIFAR-10</translation>
    </message>
    <message>
        <source>Python pipeline file</source>
        <translation>Python-Pipeline-Datei</translation>
    </message>
</context>
<context>
    <name>EngineText</name>
    <message>
        <source>LoaderLab&apos;s engine cannot run a %1 dataset (a Python pipeline file runs on PyTorch&apos;s DataLoader: engine pytorch)</source>
        <translation>die LoaderLab-Engine kann keinen Datensatz der Art „%1“ ausführen (eine Python-Pipeline-Datei läuft auf PyTorchs DataLoader: engine pytorch)</translation>
    </message>
    <message>
        <source>a Python pipeline run needs its file (dataset.path, --path my_pipeline.py)</source>
        <translation>ein Lauf mit Python-Pipeline braucht seine Datei (dataset.path, --path my_pipeline.py)</translation>
    </message>
    <message>
        <source>the PyTorch engine runs the simulated step (sleep) or none, not a model</source>
        <translation>die PyTorch-Engine führt den simulierten Schritt (sleep) oder keinen aus, kein Modell</translation>
    </message>
    <message>
        <source>PyTorch&apos;s DataLoader builds each batch in one worker: no sample-parallel</source>
        <translation>PyTorchs DataLoader baut jeden Batch in einem Worker: kein „sample-parallel“</translation>
    </message>
    <message>
        <source>%1 cannot import torch and torchvision; on Debian: apt-get install python3-torch python3-torchvision</source>
        <translation>%1 kann torch und torchvision nicht importieren; unter Debian: `apt-get install python3-torch python3-torchvision`</translation>
    </message>
    <message>
        <source>%1 cannot import torch and torchvision (%2); on Debian: apt-get install python3-torch python3-torchvision</source>
        <translation>%1 kann torch und torchvision nicht importieren (%2); unter Debian: `apt-get install python3-torch python3-torchvision`</translation>
    </message>
    <message>
        <source>%1 cannot import torch and torchvision: timed out after %2 s (LOADERLAB_PYTORCH_CHECK_SECONDS sets the limit)</source>
        <translation>%1 kann torch und torchvision nicht importieren: Zeitlimit nach %2 s überschritten (LOADERLAB_PYTORCH_CHECK_SECONDS setzt das Limit)</translation>
    </message>
    <message>
        <source>%1: the check for torch and torchvision was stopped</source>
        <translation>%1: die Prüfung auf torch und torchvision wurde abgebrochen</translation>
    </message>
    <message>
        <source>%1 (the PyTorch engine needs Python 3 with torch and torchvision)</source>
        <translation>%1 (die PyTorch-Engine braucht Python 3 mit torch und torchvision)</translation>
    </message>
    <message>
        <source>the PyTorch engine&apos;s ranks synchronise every step, as DistributedDataParallel&apos;s do: independent devices are LoaderLab&apos;s engine only</source>
        <translation>die Ränge der PyTorch-Engine synchronisieren sich bei jedem Schritt, wie die von DistributedDataParallel: unabhängige Geräte gibt es nur in LoaderLabs Engine</translation>
    </message>
    <message>
        <source>the PyTorch engine reads image folders, tensor files, synthetic data and Python pipeline files, not %1 datasets</source>
        <translation>die PyTorch-Engine liest Bildordner, Tensordateien, synthetische Daten und Python-Pipeline-Dateien, keine Datensätze der Art „%1“</translation>
    </message>
</context>
<context>
    <name>Gui</name>
    <message>
        <source>Preparing the default dataset: %1 of %2 images…</source>
        <translation>Standarddatensatz wird vorbereitet: %1 von %2 Bildern…</translation>
    </message>
    <message>
        <source>Default dataset ready: %1</source>
        <translation>Standarddatensatz bereit: %1</translation>
    </message>
</context>
<context>
    <name>Lesson</name>
    <message>
        <source>The first batch waits longest</source>
        <translation>Der erste Batch wartet am längsten</translation>
    </message>
    <message>
        <source>Before the first step every worker starts with an empty queue, so the first batch waits for a whole batch to be read, decoded and transformed. After that the workers build the next batches while the model steps.</source>
        <translation>Vor dem ersten Schritt beginnt jeder Worker mit einer leeren Warteschlange, also wartet der erste Batch, bis ein ganzer Batch gelesen, dekodiert und transformiert ist. Danach bauen die Worker die nächsten Batches, während das Modell rechnet.</translation>
    </message>
    <message>
        <source>In the wait plot, batch 0 towers over every later batch.</source>
        <translation>Im Wartezeit-Plot überragt Batch 0 jeden späteren Batch.</translation>
    </message>
    <message>
        <source>With W workers the wait spikes every W batches</source>
        <translation>Mit W Workern schnellt die Wartezeit alle W Batches hoch</translation>
    </message>
    <message>
        <source>Each worker builds whole batches, and the workers start together: a round of W batches arrives almost at once, the consumer takes them one after another, and then waits for the next round.</source>
        <translation>Jeder Worker baut ganze Batches, und die Worker beginnen gemeinsam: Eine Runde aus W Batches kommt fast auf einmal an, das Modell nimmt sie nacheinander und wartet dann auf die nächste Runde.</translation>
    </message>
    <message>
        <source>Spikes in the wait plot every W batches, following W when it changes.</source>
        <translation>Spitzen im Wartezeit-Plot alle W Batches, die W folgen, wenn es sich ändert.</translation>
    </message>
    <message>
        <source>2 workers</source>
        <translation>2 Worker</translation>
    </message>
    <message>
        <source>3 workers</source>
        <translation>3 Worker</translation>
    </message>
    <message>
        <source>Now set workers to 3.</source>
        <translation>Jetzt die Worker auf 3 stellen.</translation>
    </message>
    <message>
        <source>A slow model hides loading</source>
        <translation>Ein langsames Modell verdeckt das Laden</translation>
    </message>
    <message>
        <source>When the step takes longer than loading a batch, the workers finish the next batches while the step runs: only the first batch waits.</source>
        <translation>Dauert der Schritt länger als das Laden eines Batches, werden die Worker mit den nächsten Batches fertig, während der Schritt läuft: Nur der erste Batch wartet.</translation>
    </message>
    <message>
        <source>One wait at batch 0, then (almost) none.</source>
        <translation>Eine Wartezeit bei Batch 0, danach (fast) keine.</translation>
    </message>
    <message>
        <source>Bigger batches: higher spikes, a slower first batch</source>
        <translation>Größere Batches: höhere Spitzen, ein langsamerer erster Batch</translation>
    </message>
    <message>
        <source>A worker delivers a batch only when all of its samples are done: more samples per batch means a longer wait for the first one and higher spikes.</source>
        <translation>Ein Worker liefert einen Batch erst, wenn alle seine Samples fertig sind: Mehr Samples pro Batch heißt längeres Warten auf den ersten und höhere Spitzen.</translation>
    </message>
    <message>
        <source>The first wait and the spikes grow with the batch size.</source>
        <translation>Die erste Wartezeit und die Spitzen wachsen mit der Batchgröße.</translation>
    </message>
    <message>
        <source>batch 16</source>
        <translation>Batch 16</translation>
    </message>
    <message>
        <source>batch 128</source>
        <translation>Batch 128</translation>
    </message>
    <message>
        <source>Now set the batch size to 128.</source>
        <translation>Jetzt die Batchgröße auf 128 stellen.</translation>
    </message>
    <message>
        <source>Preprocessed tensors load faster than JPEGs five times smaller</source>
        <translation>Vorverarbeitete Tensoren laden schneller als fünfmal kleinere JPEGs</translation>
    </message>
    <message>
        <source>Decoding and resizing a JPEG costs far more than reading its bytes. A tensor file holds the images already decoded, resized and cropped (uint8): several times the bytes, much less work per sample.</source>
        <translation>Ein JPEG zu dekodieren und zu skalieren kostet weit mehr, als seine Bytes zu lesen. Eine Tensordatei enthält die Bilder schon dekodiert, skaliert und zugeschnitten (uint8): ein Mehrfaches an Bytes, viel weniger Arbeit pro Sample.</translation>
    </message>
    <message>
        <source>More samples/s from the tensor file than from the JPEG folder.</source>
        <translation>Mehr Samples/s aus der Tensordatei als aus dem JPEG-Ordner.</translation>
    </message>
    <message>
        <source>JPEG folder</source>
        <translation>JPEG-Ordner</translation>
    </message>
    <message>
        <source>tensor file</source>
        <translation>Tensordatei</translation>
    </message>
    <message>
        <source>Now switch the dataset to the preprocessed tensor file.</source>
        <translation>Jetzt den Datensatz auf die vorverarbeitete Tensordatei umstellen.</translation>
    </message>
    <message>
        <source>0 workers vs 1 worker</source>
        <translation>0 Worker gegen 1 Worker</translation>
    </message>
    <message>
        <source>With 0 workers the step&apos;s own thread loads every batch, so the load time adds to every step. One worker loads the next batch while the step runs.</source>
        <translation>Mit 0 Workern lädt der Thread des Schritts selbst jeden Batch, also kommt die Ladezeit zu jedem Schritt hinzu. Ein Worker lädt den nächsten Batch, während der Schritt läuft.</translation>
    </message>
    <message>
        <source>Long waits on every batch with 0 workers, almost none with 1.</source>
        <translation>Lange Wartezeiten bei jedem Batch mit 0 Workern, fast keine mit 1.</translation>
    </message>
    <message>
        <source>0 workers</source>
        <translation>0 Worker</translation>
    </message>
    <message>
        <source>1 worker</source>
        <translation>1 Worker</translation>
    </message>
    <message>
        <source>Now set workers to 1.</source>
        <translation>Jetzt die Worker auf 1 stellen.</translation>
    </message>
    <message>
        <source>More workers than cores</source>
        <translation>Mehr Worker als Kerne</translation>
    </message>
    <message>
        <source>Decoding is CPU work: past one worker per core the workers only take turns.</source>
        <translation>Dekodieren ist CPU-Arbeit: Über einen Worker pro Kern hinaus wechseln sich die Worker nur ab.</translation>
    </message>
    <message>
        <source>Samples/s stops growing at the number of cores.</source>
        <translation>Samples/s wachsen nur bis zur Zahl der Kerne.</translation>
    </message>
    <message>
        <source>%1 workers (one per core)</source>
        <translation>%1 Worker (einer pro Kern)</translation>
    </message>
    <message>
        <source>%1 workers</source>
        <translation>%1 Worker</translation>
    </message>
    <message>
        <source>Now double the workers.</source>
        <translation>Jetzt die Worker verdoppeln.</translation>
    </message>
    <message>
        <source>Now double them again.</source>
        <translation>Jetzt noch einmal verdoppeln.</translation>
    </message>
    <message>
        <source>Sample-parallel loading removes the spikes</source>
        <translation>Sample-paralleles Laden beseitigt die Spitzen</translation>
    </message>
    <message>
        <source>If every worker builds a part of each batch, batches arrive one at a time, evenly, instead of in rounds of W.</source>
        <translation>Baut jeder Worker einen Teil jedes Batches, kommen die Batches einzeln und gleichmäßig an statt in Runden aus W.</translation>
    </message>
    <message>
        <source>The spikes every W batches flatten out.</source>
        <translation>Die Spitzen alle W Batches flachen ab.</translation>
    </message>
    <message>
        <source>batch per worker</source>
        <translation>Batch pro Worker</translation>
    </message>
    <message>
        <source>sample-parallel</source>
        <translation>sample-parallel</translation>
    </message>
    <message>
        <source>Now set the strategy to sample-parallel.</source>
        <translation>Jetzt die Strategie auf sample-parallel stellen.</translation>
    </message>
    <message>
        <source>bf16, channels-last and checkpointing trade time and memory</source>
        <translation>bf16, channels-last und Checkpointing tauschen Zeit gegen Speicher</translation>
    </message>
    <message>
        <source>Lower precision, another memory layout and activation checkpointing change how long a training step takes and how much memory it needs, by amounts that depend on the hardware. Checkpointing keeps only each stage&apos;s input and recomputes the rest in the backward pass: less memory for more time, where activations are a large part of the memory.</source>
        <translation>Geringere Genauigkeit, ein anderes Speicherformat und Activation Checkpointing ändern, wie lange ein Trainingsschritt dauert und wie viel Speicher er braucht, um Beträge, die von der Hardware abhängen. Checkpointing behält nur die Eingabe jeder Stufe und berechnet den Rest im Rückwärtsdurchlauf neu: weniger Speicher für mehr Zeit, wo Aktivierungen einen großen Teil des Speichers ausmachen.</translation>
    </message>
    <message>
        <source>Step time and peak memory per setting, against float32; checkpointing slower but with a lower peak.</source>
        <translation>Schrittzeit und Spitzenspeicher je Einstellung, verglichen mit float32; Checkpointing langsamer, aber mit niedrigerer Spitze.</translation>
    </message>
    <message>
        <source>Now set the precision to bf16.</source>
        <translation>Jetzt die Genauigkeit auf bf16 stellen.</translation>
    </message>
    <message>
        <source>Now back to fp32, with channels-last.</source>
        <translation>Jetzt zurück zu fp32, mit channels-last.</translation>
    </message>
    <message>
        <source>Now fp32 with activation checkpointing.</source>
        <translation>Jetzt fp32 mit Activation Checkpointing.</translation>
    </message>
    <message>
        <source>checkpointing</source>
        <translation>Checkpointing</translation>
    </message>
    <message>
        <source>Predict, then watch</source>
        <translation>Vorhersagen, dann zusehen</translation>
    </message>
    <message>
        <source>LoaderLab&apos;s loader model replays the loader from the costs of one run: what a sample costs to load, collating, handing a batch over, the step, the workers&apos; start. When the first phase ends, the model is calibrated on its trace and predicts the next setting before it runs; the second phase then measures it.</source>
        <translation>Das Loader-Modell von LoaderLab spielt den Loader aus den Kosten eines Laufs nach: was ein Sample zu laden kostet, das Zusammenfügen, die Übergabe eines Batches, der Schritt, der Start der Worker. Wenn die erste Phase endet, wird das Modell an ihrem Trace kalibriert und sagt die nächste Einstellung voraus, bevor sie läuft; die zweite Phase misst sie dann.</translation>
    </message>
    <message>
        <source>The prediction before the step, then the measured samples/s within 15 % of it.</source>
        <translation>Die Vorhersage vor dem Schritt, dann die gemessenen Samples/s innerhalb von 15 % davon.</translation>
    </message>
    <message>
        <source>Now set workers to 2.</source>
        <translation>Jetzt die Worker auf 2 stellen.</translation>
    </message>
    <message>
        <source>2 workers, a slow step</source>
        <translation>2 Worker, ein langsamer Schritt</translation>
    </message>
    <message>
        <source>2 workers, batch 32</source>
        <translation>2 Worker, Batch 32</translation>
    </message>
    <message>
        <source>%1 workers again</source>
        <translation>Wieder %1 Worker</translation>
    </message>
    <message>
        <source>Now go back to one worker per core: the same setting twice shows how much phases this short differ by chance.</source>
        <translation>Jetzt zurück zu einem Worker pro Kern: dieselbe Einstellung zweimal zeigt, wie sehr so kurze Phasen zufällig voneinander abweichen.</translation>
    </message>
    <message>
        <source>More devices, less than linear</source>
        <translation>Mehr Geräte, weniger als linear</translation>
    </message>
    <message>
        <source>Data-parallel ranks each load and step their share of the batches at once, then wait for the slowest of them and all-reduce the gradient before the next step. That part does not shrink with more ranks: N ranks give less than N times the samples/s.</source>
        <translation>Datenparallele Ränge laden und rechnen ihren Anteil der Batches gleichzeitig, warten dann auf den langsamsten und tauschen vor dem nächsten Schritt den Gradienten per All-Reduce aus. Dieser Teil schrumpft mit mehr Rängen nicht: N Ränge bringen weniger als das N-fache an Samples/s.</translation>
    </message>
    <message>
        <source>Samples/s grows by less than the number of ranks; the rank time shows where the rest went.</source>
        <translation>Samples/s wachsen um weniger als die Zahl der Ränge; die Zeit der Ränge zeigt, wohin der Rest ging.</translation>
    </message>
    <message>
        <source>1 rank</source>
        <translation>1 Rang</translation>
    </message>
    <message>
        <source>%1 ranks</source>
        <translation>%1 Ränge</translation>
    </message>
    <message>
        <source>Now use 2 devices.</source>
        <translation>Jetzt 2 Geräte verwenden.</translation>
    </message>
    <message>
        <source>Now use 4 devices.</source>
        <translation>Jetzt 4 Geräte verwenden.</translation>
    </message>
    <message>
        <source>What is the limit here?</source>
        <translation>Wo liegt hier die Grenze?</translation>
    </message>
    <message>
        <source>A job runs at the speed of its slowest stage: the loader or the step. The lesson runs your settings, keeps the first batches, then stops loading and runs the step on the kept batches: the step alone, with a loader that costs nothing. The gap between the two rates is what loading costs, and the second rate is the next ceiling once the loader is lifted.</source>
        <translation>Ein Job läuft so schnell wie seine langsamste Stufe: der Loader oder der Schritt. Die Lektion führt Ihre Einstellungen aus, hält die ersten Batches, hört dann auf zu laden und führt den Schritt auf den gehaltenen Batches aus: der Schritt allein, mit einem Loader, der nichts kostet. Der Abstand der beiden Raten ist, was das Laden kostet, und die zweite Rate ist die nächste Obergrenze, sobald der Loader angehoben ist.</translation>
    </message>
    <message>
        <source>At the replay marker the waits drop to 0 and the workers go idle; samples/s jumps if the loader was the limit, and stays if the step was.</source>
        <translation>An der Markierung der Wiederholung fallen die Wartezeiten auf 0 und die Worker ruhen; Samples/s springt, wenn der Loader die Grenze war, und bleibt, wenn es der Schritt war.</translation>
    </message>
    <message>
        <source>Your settings, then loading made free</source>
        <translation>Ihre Einstellungen, dann kostenloses Laden</translation>
    </message>
</context>
<context>
    <name>MarkerText</name>
    <message>
        <source>on</source>
        <translation>an</translation>
    </message>
    <message>
        <source>off</source>
        <translation>aus</translation>
    </message>
    <message>
        <source>paused</source>
        <translation>pausiert</translation>
    </message>
    <message>
        <source>resumed</source>
        <translation>fortgesetzt</translation>
    </message>
    <message>
        <source>epoch %1</source>
        <translation>Epoche %1</translation>
    </message>
    <message>
        <source>autotune: %1</source>
        <translation>Autotune: %1</translation>
    </message>
    <message>
        <source>autotune: %1 (%2)</source>
        <translation>Autotune: %1 (%2)</translation>
    </message>
    <message>
        <source>e%1</source>
        <comment>a crowded plot&apos;s epoch N</comment>
        <translation>E%1</translation>
    </message>
    <message>
        <source>replay of the %1 batches kept</source>
        <translation>Wiederholung der %1 gehaltenen Batches</translation>
    </message>
</context>
<context>
    <name>MaxBatch</name>
    <message>
        <source>nothing fits</source>
        <translation>nichts passt</translation>
    </message>
    <message>
        <source>90 %, multiple of 8</source>
        <translation>90 %, Vielfaches von 8</translation>
    </message>
    <message>
        <source>90 %, rounded down</source>
        <translation>90 %, abgerundet</translation>
    </message>
    <message>
        <source>at least 1</source>
        <translation>mindestens 1</translation>
    </message>
</context>
<context>
    <name>PlotExport</name>
    <message>
        <source>cannot write %1: %2</source>
        <translation>%1 kann nicht geschrieben werden: %2</translation>
    </message>
    <message>
        <source>no plot</source>
        <translation>kein Plot</translation>
    </message>
    <message>
        <source>the plot has no size</source>
        <translation>der Plot hat keine Größe</translation>
    </message>
    <message>
        <source>unknown format &quot;%1&quot; (use .png, .svg or .pdf)</source>
        <translation>unbekanntes Format &quot;%1&quot; (verwenden Sie .png, .svg oder .pdf)</translation>
    </message>
    <message>
        <source>rendering failed</source>
        <translation>Rendern fehlgeschlagen</translation>
    </message>
    <message>
        <source>only %1 of %2 bytes written (disk full?)</source>
        <translation>nur %1 von %2 Bytes geschrieben (Datenträger voll?)</translation>
    </message>
    <message>
        <source>Export plots into folder</source>
        <translation>Plots in Ordner exportieren</translation>
    </message>
    <message>
        <source>Export plots</source>
        <translation>Plots exportieren</translation>
    </message>
    <message>
        <source>Wrote the plots as PNG, SVG and PDF to %1</source>
        <translation>Plots als PNG, SVG und PDF nach %1 geschrieben</translation>
    </message>
    <message>
        <source>PNG: the plots as laid out on screen, drawn this much finer. SVG and PDF are vector drawings.</source>
        <translation>PNG: die Plots wie auf dem Bildschirm angeordnet, um so viel feiner gezeichnet. SVG und PDF sind Vektorgrafiken.</translation>
    </message>
    <message>
        <source>1× (screen size)</source>
        <translation>1× (Bildschirmgröße)</translation>
    </message>
    <message>
        <source>2×</source>
        <translation>2×</translation>
    </message>
    <message>
        <source>3×</source>
        <translation>3×</translation>
    </message>
    <message>
        <source>Width in pixels:</source>
        <translation>Breite in Pixeln:</translation>
    </message>
    <message>
        <source> px</source>
        <translation> px</translation>
    </message>
    <message>
        <source>Title line above each plot (the run, its settings, the date)</source>
        <translation>Titelzeile über jedem Plot (der Lauf, seine Einstellungen, das Datum)</translation>
    </message>
    <message>
        <source>PNG size:</source>
        <translation>PNG-Größe:</translation>
    </message>
</context>
<context>
    <name>PlotTitle</name>
    <message>
        <source>1 worker</source>
        <translation>1 Worker</translation>
    </message>
    <message>
        <source>%1 workers</source>
        <translation>%1 Worker</translation>
    </message>
    <message>
        <source>batch %1</source>
        <translation>Batch %1</translation>
    </message>
    <message>
        <source>prefetch %1</source>
        <translation>Prefetch %1</translation>
    </message>
    <message>
        <source>pin memory on</source>
        <translation>Pinned Memory an</translation>
    </message>
    <message>
        <source>pin memory off</source>
        <translation>Pinned Memory aus</translation>
    </message>
    <message>
        <source>%1 devices</source>
        <translation>%1 Geräte</translation>
    </message>
    <message>
        <source>no step</source>
        <translation>kein Schritt</translation>
    </message>
    <message>
        <source>%1 ms per batch</source>
        <translation>%1 ms pro Batch</translation>
    </message>
    <message>
        <source>%1 ms per sample</source>
        <translation>%1 ms pro Sample</translation>
    </message>
    <message>
        <source>step: sleep %1</source>
        <translation>Schritt: Pause %1</translation>
    </message>
    <message>
        <source>0 ms</source>
        <translation>0 ms</translation>
    </message>
    <message>
        <source>step: model %1</source>
        <translation>Schritt: Modell %1</translation>
    </message>
    <message>
        <source>%1 %2 × %3x%4x%5</source>
        <translation>%1 %2 × %3x%4x%5</translation>
    </message>
    <message>
        <source>exported %1</source>
        <translation>exportiert %1</translation>
    </message>
</context>
<context>
    <name>ReportPdf</name>
    <message>
        <source>cannot write %1: %2</source>
        <translation>%1 kann nicht geschrieben werden: %2</translation>
    </message>
    <message>
        <source>plot %1 of the report is not valid SVG</source>
        <translation>Plot %1 des Berichts ist kein gültiges SVG</translation>
    </message>
    <message>
        <source>rendering failed</source>
        <translation>Rendern fehlgeschlagen</translation>
    </message>
</context>
<context>
    <name>SweepText</name>
    <message>
        <source>1 worker</source>
        <translation>1 Worker</translation>
    </message>
    <message>
        <source>%1 workers</source>
        <translation>%1 Worker</translation>
    </message>
    <message>
        <source>batch %1</source>
        <translation>Batch %1</translation>
    </message>
    <message>
        <source>prefetch %1</source>
        <translation>Prefetch %1</translation>
    </message>
    <message>
        <source>the best cell</source>
        <translation>die beste Zelle</translation>
    </message>
    <message>
        <source> (%1 s end to end, %2 samples/s)</source>
        <translation> (%1 s Gesamtzeit, %2 Samples/s)</translation>
    </message>
    <message>
        <source>more workers add nothing past %1</source>
        <translation>mehr als %1 Worker bringen nichts</translation>
    </message>
    <message>
        <source>%1 is %2 slower</source>
        <translation>%1 ist %2 langsamer</translation>
    </message>
    <message>
        <source>the runner-up</source>
        <translation>die Zweitbeste</translation>
    </message>
    <message>
        <source> (one run per cell: the spread is unknown; set Repeats to 2 or more)</source>
        <translation> (ein Lauf pro Zelle: die Streuung ist unbekannt; Wiederholungen auf 2 oder mehr setzen)</translation>
    </message>
    <message>
        <source>, within noise (repeats spread %1)</source>
        <translation>, im Rauschen (Wiederholungen streuen %1)</translation>
    </message>
    <message>
        <source>, more than the repeats&apos; spread of %1</source>
        <translation>, mehr als die Streuung der Wiederholungen von %1</translation>
    </message>
    <message>
        <source>highest throughput with %1</source>
        <translation>höchster Durchsatz mit %1</translation>
    </message>
    <message>
        <source>End-to-end time (s)</source>
        <translation>Gesamtzeit (s)</translation>
    </message>
    <message>
        <source>End to end (s)</source>
        <translation>Gesamtzeit (s)</translation>
    </message>
    <message>
        <source>Throughput (samples/s)</source>
        <translation>Durchsatz (Samples/s)</translation>
    </message>
    <message>
        <source>Samples/s</source>
        <translation>Samples/s</translation>
    </message>
    <message>
        <source>First-batch latency (ms)</source>
        <translation>Latenz des ersten Batches (ms)</translation>
    </message>
    <message>
        <source>First batch (ms)</source>
        <translation>Erster Batch (ms)</translation>
    </message>
    <message>
        <source>Input-bound share</source>
        <translation>Input-bound-Anteil</translation>
    </message>
    <message>
        <source>Input-bound</source>
        <translation>Input-bound</translation>
    </message>
    <message>
        <source>Wait p95 (ms)</source>
        <translation>Wartezeit p95 (ms)</translation>
    </message>
</context>
<context>
    <name>loaderlab::AutotuneManager</name>
    <message>
        <source>Autotune on: workers, prefetch and batch size</source>
        <translation>Automatische Abstimmung an: Worker, Prefetch und Batchgröße</translation>
    </message>
    <message>
        <source>Autotune on: workers and prefetch</source>
        <translation>Automatische Abstimmung an: Worker und Prefetch</translation>
    </message>
</context>
<context>
    <name>loaderlab::BackgroundTask</name>
    <message>
        <source>unknown error</source>
        <translation>unbekannter Fehler</translation>
    </message>
</context>
<context>
    <name>loaderlab::ControlPanel</name>
    <message>
        <source>Loader</source>
        <translation>Loader</translation>
    </message>
    <message>
        <source>Samples per batch; the slider steps through powers of two, any size can be typed.</source>
        <translation>Samples pro Batch; der Schieberegler springt in Zweierpotenzen, jede Größe kann eingegeben werden.</translation>
    </message>
    <message>
        <source>per-worker (PyTorch)</source>
        <translation>per-worker (PyTorch)</translation>
    </message>
    <message>
        <source>sample-parallel</source>
        <translation>sample-parallel</translation>
    </message>
    <message>
        <source>Deliver out of order</source>
        <translation>Außer der Reihe liefern</translation>
    </message>
    <message>
        <source>Fast JPEG decode</source>
        <translation>Schnelle JPEG-Dekodierung</translation>
    </message>
    <message>
        <source>Model step (simulated)</source>
        <translation>Modellschritt (simuliert)</translation>
    </message>
    <message>
        <source> ms</source>
        <translation> ms</translation>
    </message>
    <message>
        <source>Dataset</source>
        <translation>Datensatz</translation>
    </message>
    <message>
        <source>Choose the dataset on disk.</source>
        <translation>Datensatz auf dem Datenträger auswählen.</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Durchsuchen…</translation>
    </message>
    <message>
        <source>eval</source>
        <translation>eval</translation>
    </message>
    <message>
        <source>train</source>
        <translation>train</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>Lauf</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>Start</translation>
    </message>
    <message>
        <source>Open the dataset and start loading until stopped.</source>
        <translation>Datensatz öffnen und laden, bis der Lauf gestoppt wird.</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pause</translation>
    </message>
    <message>
        <source>Hold the model loop; workers stop once their prefetch is full.</source>
        <translation>Modellschleife anhalten; Worker stoppen, sobald ihr Prefetch voll ist.</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>Stopp</translation>
    </message>
    <message>
        <source>End the run and keep its figures.</source>
        <translation>Lauf beenden und seine Kennzahlen behalten.</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>Zurücksetzen</translation>
    </message>
    <message>
        <source>Stop and clear the current run and its plots.</source>
        <translation>Aktuellen Lauf stoppen und samt Plots löschen.</translation>
    </message>
    <message>
        <source>Not available: %1</source>
        <translation>Nicht verfügbar: %1</translation>
    </message>
    <message>
        <source>Choose a preprocessed tensor file</source>
        <translation>Vorverarbeitete Tensordatei auswählen</translation>
    </message>
    <message>
        <source>Choose the dataset directory</source>
        <translation>Verzeichnis des Datensatzes auswählen</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Fortsetzen</translation>
    </message>
    <message>
        <source>Replaced by the LibTorch model below; uncheck it to simulate the step.</source>
        <translation>Durch das LibTorch-Modell unten ersetzt; dort abwählen, um den Schritt zu simulieren.</translation>
    </message>
    <message>
        <source>Applied on Return.</source>
        <translation>Wird mit der Eingabetaste übernommen.</translation>
    </message>
    <message>
        <source>Autotune workers and prefetch</source>
        <translation>Worker und Prefetch automatisch abstimmen</translation>
    </message>
    <message>
        <source>and the batch size</source>
        <translation>und die Batchgröße</translation>
    </message>
    <message>
        <source>Let the autotuner double or halve the batch size too (as --autotune-batch).</source>
        <translation>Die automatische Abstimmung darf auch die Batchgröße verdoppeln oder halbieren (wie --autotune-batch).</translation>
    </message>
    <message>
        <source>Set by the autotuner while it runs; uncheck Autotune to set it by hand.</source>
        <translation>Wird von der automatischen Abstimmung gesetzt; zum Einstellen von Hand die Abstimmung abwählen.</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>Wert</translation>
    </message>
    <message>
        <source>Choose a Python pipeline file</source>
        <translation>Python-Pipeline-Datei wählen</translation>
    </message>
    <message>
        <source>Python files (*.py);;All files (*)</source>
        <translation>Python-Dateien (*.py);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Measuring the run as it is.</source>
        <translation>Misst den Lauf, wie er ist.</translation>
    </message>
    <message>
        <source>Holding: no other setting measured better.</source>
        <translation>Hält: Keine andere Einstellung war messbar besser.</translation>
    </message>
    <message>
        <source>Comparing settings, one window each.</source>
        <translation>Vergleicht Einstellungen, je ein Messfenster.</translation>
    </message>
    <message>
        <source>No other program was busy in the last window.</source>
        <translation>Im letzten Messfenster war kein anderes Programm beschäftigt.</translation>
    </message>
    <message>
        <source>Other programs asked for %1 of the %2 cores in the last window; settings are compared only on windows with the same load.</source>
        <translation>Andere Programme beanspruchten im letzten Messfenster %1 der %2 Kerne; Einstellungen werden nur über Messfenster mit gleicher Last verglichen.</translation>
    </message>
    <message>
        <source>While the run goes, measure samples/s and move workers and prefetch where a measured window gains more than the noise (as loaderlab run --autotune); each trial and move is a marker on the plots.</source>
        <translation>Während der Lauf geht, Samples/s messen und Worker und Prefetch verstellen, wo ein gemessenes Fenster mehr als das Rauschen gewinnt (wie loaderlab run --autotune); jeder Versuch und jede Änderung ist eine Markierung in den Diagrammen.</translation>
    </message>
    <message>
        <source>How the autotuner finds the next setting to measure (as --autotune-search): the loader model, calibrated on the run, proposes the setting it predicts best and a measured window confirms it; or a hill climb measures one neighbour at a time.</source>
        <translation>Wie die automatische Abstimmung die nächste zu messende Einstellung findet (wie --autotune-search): Das am Lauf kalibrierte Loader-Modell schlägt die Einstellung vor, die es als beste vorhersagt, und ein gemessenes Fenster bestätigt sie; oder eine Bergsteigersuche misst einen Nachbarn nach dem anderen.</translation>
    </message>
    <message>
        <source>Proposed by the loader model</source>
        <translation>Vom Loader-Modell vorgeschlagen</translation>
    </message>
    <message>
        <source>Hill climb of measured trials</source>
        <translation>Bergsteigersuche mit gemessenen Versuchen</translation>
    </message>
</context>
<context>
    <name>loaderlab::EngineChoice</name>
    <message>
        <source>Engine</source>
        <translation>Engine</translation>
    </message>
    <message>
        <source>LoaderLab</source>
        <translation>LoaderLab</translation>
    </message>
    <message>
        <source>PyTorch DataLoader</source>
        <translation>PyTorch-DataLoader</translation>
    </message>
    <message>
        <source>PyTorch DataLoader not available: %1</source>
        <translation>PyTorch-DataLoader nicht verfügbar: %1</translation>
    </message>
    <message>
        <source>LoaderLab&apos;s loader, or the same settings on PyTorch&apos;s own DataLoader (worker processes) as a reference.</source>
        <translation>Der Loader von LoaderLab oder dieselben Einstellungen mit dem DataLoader von PyTorch (Worker-Prozesse) als Referenz.</translation>
    </message>
    <message>
        <source>Checking whether Python can import torch…</source>
        <translation>Prüfe, ob Python torch importieren kann…</translation>
    </message>
    <message>
        <source>Python %1 with torch</source>
        <translation>Python %1 mit torch</translation>
    </message>
    <message>
        <source>Image folders, tensor files, synthetic data and your Python pipeline files: worker processes, rebuilt at the next batch when a setting changes; several devices are rank processes.</source>
        <translation>Bildordner, Tensordateien, synthetische Daten und eigene Python-Pipeline-Dateien: Worker-Prozesse, beim nächsten Batch neu aufgebaut, wenn sich eine Einstellung ändert; mehrere Geräte sind Rang-Prozesse.</translation>
    </message>
</context>
<context>
    <name>loaderlab::EngineManager</name>
    <message>
        <source>Pinned memory speeds up copies to a GPU; no CUDA device is available (LibTorch %1).</source>
        <translation>Pinned Memory beschleunigt Kopien auf eine GPU; es ist kein CUDA-Gerät verfügbar (LibTorch %1).</translation>
    </message>
    <message>
        <source>not linked</source>
        <translation>nicht eingebunden</translation>
    </message>
    <message>
        <source>%1 cannot change settings while it runs; they apply at the next Start.</source>
        <translation>%1 kann Einstellungen nicht während des Laufs ändern; sie gelten beim nächsten Start.</translation>
    </message>
    <message>
        <source>%1 cannot pause; Stop ends the run.</source>
        <translation>%1 kann nicht pausieren; Stoppen beendet den Lauf.</translation>
    </message>
    <message>
        <source>%1 runs the simulated step, not a LibTorch model.</source>
        <translation>%1 führt den simulierten Schritt aus, kein LibTorch-Modell.</translation>
    </message>
    <message>
        <source>%1 builds each batch in one worker.</source>
        <translation>%1 baut jeden Batch in einem Worker.</translation>
    </message>
    <message>
        <source>%1 does not measure a model&apos;s memory.</source>
        <translation>%1 misst den Speicher eines Modells nicht.</translation>
    </message>
</context>
<context>
    <name>loaderlab::EventListView</name>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Batch</source>
        <translation>Batch</translation>
    </message>
    <message>
        <source>Time (s)</source>
        <translation>Zeit (s)</translation>
    </message>
    <message>
        <source>Event</source>
        <translation>Ereignis</translation>
    </message>
    <message>
        <source>Every marker of the shown runs. Choose one to centre the plots on it; the numbers are those the plots show where labels crowd.</source>
        <translation>Jede Markierung der angezeigten Läufe. Wählen Sie eine, um die Plots darauf zu zentrieren; die Nummern sind die, die die Plots zeigen, wo Beschriftungen zu dicht stehen.</translation>
    </message>
</context>
<context>
    <name>loaderlab::ExperimentsView</name>
    <message>
        <source>Sweep</source>
        <translation>Sweep</translation>
    </message>
    <message>
        <source>Where the results go; a folder of the same sweep is resumed, one of another sweep is refused. Empty: a new folder under %1.</source>
        <translation>Wohin die Ergebnisse gehen; ein Ordner desselben Sweeps wird fortgesetzt, einer eines anderen Sweeps abgelehnt. Leer: ein neuer Ordner unter %1.</translation>
    </message>
    <message>
        <source>new folder (default)</source>
        <translation>neuer Ordner (Standard)</translation>
    </message>
    <message>
        <source>Choose the results folder.</source>
        <translation>Den Ergebnisordner wählen.</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Durchsuchen…</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>Start</translation>
    </message>
    <message>
        <source>Runs every cell one after another with the side panel&apos;s settings and the values checked above.</source>
        <translation>Führt jede Zelle nacheinander aus, mit den Einstellungen der Seitenleiste und den oben angehakten Werten.</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>Stopp</translation>
    </message>
    <message>
        <source>Stops the running cell at once; it is not recorded, and Resume runs it again.</source>
        <translation>Stoppt die laufende Zelle sofort; sie wird nicht gespeichert, und Fortsetzen führt sie erneut aus.</translation>
    </message>
    <message>
        <source>Resume…</source>
        <translation>Fortsetzen…</translation>
    </message>
    <message>
        <source>Opens a results folder, shows its sweep and runs the cells it lacks.</source>
        <translation>Öffnet einen Ergebnisordner, zeigt seinen Sweep und führt die fehlenden Zellen aus.</translation>
    </message>
    <message>
        <source>No sweep yet.</source>
        <translation>Noch kein Sweep.</translation>
    </message>
    <message>
        <source>Results folder</source>
        <translation>Ergebnisordner</translation>
    </message>
    <message>
        <source>Check at least one value of an axis.</source>
        <translation>Mindestens einen Wert einer Achse anhaken.</translation>
    </message>
    <message>
        <source>Starting: %1 of %2 cells found done in %3</source>
        <translation>Start: %1 von %2 Zellen in %3 bereits fertig</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>Wird gestoppt…</translation>
    </message>
    <message>
        <source>repeat %1</source>
        <translation>Wiederholung %1</translation>
    </message>
    <message>
        <source>Cell %1 of %2: %3 — ETA %4</source>
        <translation>Zelle %1 von %2: %3 — fertig in %4</translation>
    </message>
    <message>
        <source>after the first cell</source>
        <translation>nach der ersten Zelle</translation>
    </message>
    <message numerus="yes">
        <source>ran %n cell(s)</source>
        <translation>
            <numerusform>%n Zelle ausgeführt</numerusform>
            <numerusform>%n Zellen ausgeführt</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source> (%n failed)</source>
        <translation>
            <numerusform> (%n fehlgeschlagen)</numerusform>
            <numerusform> (%n fehlgeschlagen)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>, %n found done</source>
        <translation>
            <numerusform>, %n bereits fertig</numerusform>
            <numerusform>, %n bereits fertig</numerusform>
        </translation>
    </message>
    <message>
        <source>Resume a sweep: its results folder</source>
        <translation>Sweep fortsetzen: sein Ergebnisordner</translation>
    </message>
    <message>
        <source>The recommendation appears when cells have run.</source>
        <translation>Die Empfehlung erscheint, sobald Zellen gelaufen sind.</translation>
    </message>
    <message>
        <source>The figure the heatmap shows.</source>
        <translation>Die Kennzahl, die die Heatmap zeigt.</translation>
    </message>
    <message>
        <source>The axis across.</source>
        <translation>Die waagrechte Achse.</translation>
    </message>
    <message>
        <source>The axis up; with more than two axes each cell shows the best over the others.</source>
        <translation>Die senkrechte Achse; bei mehr als zwei Achsen zeigt jede Zelle den besten Wert über die übrigen.</translation>
    </message>
    <message>
        <source>Every plot of this tab as PNG, SVG and PDF into a folder.</source>
        <translation>Jeden Plot dieses Tabs als PNG, SVG und PDF in einen Ordner.</translation>
    </message>
    <message>
        <source>Export plots…</source>
        <translation>Plots exportieren…</translation>
    </message>
    <message>
        <source>The table with unrounded figures as CSV.</source>
        <translation>Die Tabelle mit ungerundeten Werten als CSV.</translation>
    </message>
    <message>
        <source>Export table…</source>
        <translation>Tabelle exportieren…</translation>
    </message>
    <message>
        <source>Heatmap:</source>
        <translation>Heatmap:</translation>
    </message>
    <message>
        <source>across</source>
        <translation>quer</translation>
    </message>
    <message>
        <source>up</source>
        <translation>hoch</translation>
    </message>
    <message>
        <source>One row per cell; click one to see its batches below.</source>
        <translation>Eine Zeile pro Zelle; anklicken, um unten ihre Batches zu sehen.</translation>
    </message>
    <message>
        <source>Click a cell to see its batches.</source>
        <translation>Eine Zelle anklicken, um ihre Batches zu sehen.</translation>
    </message>
    <message>
        <source>Line plots</source>
        <translation>Linienplots</translation>
    </message>
    <message>
        <source>Selected cell</source>
        <translation>Gewählte Zelle</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>(keine)</translation>
    </message>
    <message>
        <source>Recommended: %1</source>
        <translation>Empfohlen: %1</translation>
    </message>
    <message>
        <source>failed: %1</source>
        <translation>fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>no trace (not run yet)</source>
        <translation>kein Trace (noch nicht gelaufen)</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source> (repeat %1)</source>
        <translation> (Wiederholung %1)</translation>
    </message>
    <message>
        <source>Export table</source>
        <translation>Tabelle exportieren</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>CSV-Dateien (*.csv)</translation>
    </message>
    <message>
        <source>Wrote %1</source>
        <translation>%1 geschrieben</translation>
    </message>
    <message>
        <source>Stopped: %1. Results in %2</source>
        <translation>Gestoppt: %1. Ergebnisse in %2</translation>
    </message>
    <message>
        <source>Done: %1. Results in %2</source>
        <translation>Fertig: %1. Ergebnisse in %2</translation>
    </message>
    <message>
        <source>Sweep heatmap: %1 across %2</source>
        <translation>Sweep-Heatmap: %1 über %2</translation>
    </message>
    <message>
        <source>, up %1</source>
        <translation>, senkrecht %1</translation>
    </message>
    <message>
        <source>Sweep: end-to-end time</source>
        <translation>Sweep: Gesamtzeit</translation>
    </message>
    <message>
        <source>Sweep: model step per sample</source>
        <translation>Sweep: Modellschritt pro Sample</translation>
    </message>
    <message>
        <source>Sweep: speedup and efficiency</source>
        <translation>Sweep: Beschleunigung und Effizienz</translation>
    </message>
    <message>
        <source>Selected cell: wait per batch</source>
        <translation>Gewählte Zelle: Wartezeit pro Batch</translation>
    </message>
    <message>
        <source>Selected cell: worker timeline</source>
        <translation>Gewählte Zelle: Worker-Zeitleiste</translation>
    </message>
    <message>
        <source>No sweep · %1</source>
        <translation>Kein Sweep · %1</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>%1 samples per cell</source>
        <translation>%1 Samples pro Zelle</translation>
    </message>
    <message>
        <source>%1 batches per cell</source>
        <translation>%1 Batches pro Zelle</translation>
    </message>
    <message>
        <source>%1 s per cell</source>
        <translation>%1 s pro Zelle</translation>
    </message>
    <message>
        <source>Sweep over %1, %2</source>
        <translation>Sweep über %1, %2</translation>
    </message>
    <message numerus="yes">
        <source>, %n repeat(s)</source>
        <translation>
            <numerusform>, %n Wiederholung</numerusform>
            <numerusform>, %n Wiederholungen</numerusform>
        </translation>
    </message>
    <message>
        <source>Base: %1 · %2</source>
        <translation>Basis: %1 · %2</translation>
    </message>
    <message>
        <source>No cell selected · %1</source>
        <translation>Keine Zelle gewählt · %1</translation>
    </message>
    <message>
        <source>Cell: %1</source>
        <translation>Zelle: %1</translation>
    </message>
    <message>
        <source>%1; %2 · %3</source>
        <translation>%1; %2 · %3</translation>
    </message>
    <message>
        <source> · folder %1</source>
        <translation> · Ordner %1</translation>
    </message>
    <message>
        <source>The loader model beside the measurement: calibrated from one measured cell, it predicts every cell; the heatmap shows each measured cell&apos;s prediction error, the table the predicted samples/s.</source>
        <translation>Das Loader-Modell neben der Messung: an einer gemessenen Zelle kalibriert, sagt es jede Zelle voraus; die Heatmap zeigt den Vorhersagefehler jeder gemessenen Zelle, die Tabelle die vorhergesagten Samples/s.</translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation>Vorhergesagt</translation>
    </message>
    <message>
        <source>The measured cell the model is calibrated from (its trace).</source>
        <translation>Die gemessene Zelle, an der das Modell kalibriert wird (ihr Trace).</translation>
    </message>
    <message>
        <source>Calibrated from:</source>
        <translation>Kalibriert an:</translation>
    </message>
    <message>
        <source>No measured cell has kept a trace yet: the model is calibrated from one.</source>
        <translation>Noch keine gemessene Zelle hat einen Trace behalten: das Modell wird an einer kalibriert.</translation>
    </message>
    <message>
        <source>Predicting…</source>
        <translation>Vorhersage läuft…</translation>
    </message>
    <message>
        <source>The model could not be calibrated: %1</source>
        <translation>Das Modell ließ sich nicht kalibrieren: %1</translation>
    </message>
    <message numerus="yes">
        <source>Median error of the predicted %1: %2 % over %n measured cell(s).</source>
        <translation>
            <numerusform>Medianer Fehler der vorhergesagten %1: %2 % über %n gemessene Zelle.</numerusform>
            <numerusform>Medianer Fehler der vorhergesagten %1: %2 % über %n gemessene Zellen.</numerusform>
        </translation>
    </message>
    <message>
        <source>No cell measured to compare with.</source>
        <translation>Keine gemessene Zelle zum Vergleich.</translation>
    </message>
    <message numerus="yes">
        <source>%n cell(s) not predicted: an axis the model cannot predict differs.</source>
        <translation>
            <numerusform>%n Zelle nicht vorhergesagt: eine Achse, die das Modell nicht vorhersagen kann, ist anders.</numerusform>
            <numerusform>%n Zellen nicht vorhergesagt: eine Achse, die das Modell nicht vorhersagen kann, ist anders.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Assumed: %n core(s) (this machine&apos;s), processor sharing, no memory-bandwidth, cache or network model.</source>
        <translation>
            <numerusform>Angenommen: %n Kern (der dieses Rechners), Processor Sharing, kein Modell von Speicherbandbreite, Cache oder Netz.</numerusform>
            <numerusform>Angenommen: %n Kerne (die dieses Rechners), Processor Sharing, kein Modell von Speicherbandbreite, Cache oder Netz.</numerusform>
        </translation>
    </message>
    <message>
        <source>Sweep heatmap: prediction error of %1 across %2</source>
        <translation>Sweep-Heatmap: Vorhersagefehler von %1 über %2</translation>
    </message>
</context>
<context>
    <name>loaderlab::FileManager</name>
    <message>
        <source>Open configuration</source>
        <translation>Konfiguration öffnen</translation>
    </message>
    <message>
        <source>LoaderLab configuration (*.json)</source>
        <translation>LoaderLab-Konfiguration (*.json)</translation>
    </message>
    <message>
        <source>Loaded %1</source>
        <translation>%1 geladen</translation>
    </message>
    <message>
        <source>Save configuration</source>
        <translation>Konfiguration speichern</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>%1 gespeichert</translation>
    </message>
    <message>
        <source>There is no run to export.</source>
        <translation>Es gibt keinen Lauf zum Exportieren.</translation>
    </message>
    <message>
        <source>Export trace</source>
        <translation>Trace exportieren</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>CSV-Dateien (*.csv)</translation>
    </message>
    <message>
        <source>Wrote %1</source>
        <translation>%1 geschrieben</translation>
    </message>
    <message>
        <source>Export summary</source>
        <translation>Zusammenfassung exportieren</translation>
    </message>
    <message>
        <source>JSON files (*.json)</source>
        <translation>JSON-Dateien (*.json)</translation>
    </message>
    <message>
        <source>Export trace for Perfetto</source>
        <translation>Trace für Perfetto exportieren</translation>
    </message>
    <message>
        <source>Chrome JSON trace (*.json)</source>
        <translation>Chrome-JSON-Trace (*.json)</translation>
    </message>
    <message>
        <source>Wrote %1 (open it in ui.perfetto.dev or chrome://tracing)</source>
        <translation>%1 geschrieben (in ui.perfetto.dev oder chrome://tracing öffnen)</translation>
    </message>
    <message>
        <source>%1: no per-batch CSV of the same name beside it; choose both files.</source>
        <translation>%1: keine Batch-CSV gleichen Namens daneben; beide Dateien wählen.</translation>
    </message>
    <message>
        <source>%1: no summary JSON of the same name beside it; choose both files.</source>
        <translation>%1: kein Zusammenfassungs-JSON gleichen Namens daneben; beide Dateien wählen.</translation>
    </message>
    <message>
        <source>Opened %1 and %2</source>
        <translation>%1 und %2 geöffnet</translation>
    </message>
    <message>
        <source>Open run</source>
        <translation>Lauf öffnen</translation>
    </message>
    <message>
        <source>LoaderLab runs: per-batch CSV and summary JSON (*.csv *.json)</source>
        <translation>LoaderLab-Läufe: Batch-CSV und Zusammenfassungs-JSON (*.csv *.json)</translation>
    </message>
    <message>
        <source>Choose one run: its CSV, its JSON, or both.</source>
        <translation>Einen Lauf wählen: seine CSV, sein JSON oder beide.</translation>
    </message>
    <message>
        <source>Follow run</source>
        <translation>Lauf verfolgen</translation>
    </message>
    <message>
        <source>No run · %1</source>
        <translation>Kein Lauf · %1</translation>
    </message>
    <message>
        <source>%1: %2; %3 · %4</source>
        <translation>%1: %2; %3 · %4</translation>
    </message>
    <message>
        <source>Compared with: %1</source>
        <translation>Verglichen mit: %1</translation>
    </message>
    <message>
        <source>A run being written: its per-batch CSV or summary JSON, or their .part while loaderlab run writes them (*.csv *.json *.csv.part *.json.part)</source>
        <translation>Ein Lauf, der noch geschrieben wird: seine CSV je Batch oder seine JSON-Zusammenfassung, oder deren .part, solange loaderlab run sie schreibt (*.csv *.json *.csv.part *.json.part)</translation>
    </message>
    <message>
        <source>The run to export:</source>
        <translation>Der zu exportierende Lauf:</translation>
    </message>
    <message>
        <source>Export report</source>
        <translation>Bericht exportieren</translation>
    </message>
    <message>
        <source>HTML files (*.html);;PDF files (*.pdf)</source>
        <translation>HTML-Dateien (*.html);;PDF-Dateien (*.pdf)</translation>
    </message>
    <message>
        <source>Export figures table</source>
        <translation>Kennzahlentabelle exportieren</translation>
    </message>
</context>
<context>
    <name>loaderlab::HelpDialog</name>
    <message>
        <source>What the plots show</source>
        <translation>Was die Plots zeigen</translation>
    </message>
    <message>
        <source>&lt;b&gt;Wait time per batch&lt;/b&gt;: each dot is how long the model waited for one batch&apos;s data, with its rolling mean and the model step beside it. With W workers the waits often spike every W batches: each worker builds a whole batch, the workers finish their batches at about the same time, so the model waits for the first batch of each round and finds the others ready. The red diamond is the first batch: the workers&apos; start-up, not the steady state.</source>
        <translation>&lt;b&gt;Wartezeit pro Batch&lt;/b&gt;: Jeder Punkt ist die Zeit, die das Modell auf die Daten eines Batches gewartet hat, mit ihrem gleitenden Mittelwert und dem Modellschritt daneben. Mit W Workern schnellt die Wartezeit oft alle W Batches hoch: Jeder Worker baut einen ganzen Batch, die Worker werden mit ihren Batches etwa gleichzeitig fertig, also wartet das Modell auf den ersten Batch jeder Runde und findet die übrigen fertig vor. Die rote Raute ist der erste Batch: der Start der Worker, nicht der eingeschwungene Zustand.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Input-bound or compute-bound&lt;/b&gt;: waits above the model step mean the model is starved for data (more workers, or cheaper loading, helps); waits near zero under a longer step mean the loader keeps up and the model sets the pace. The stats panel gives the input-bound share with one line of advice.</source>
        <translation>&lt;b&gt;Input-bound oder compute-bound&lt;/b&gt;: Wartezeiten über dem Modellschritt heißen, dass dem Modell die Daten fehlen (mehr Worker oder billigeres Laden helfen); Wartezeiten nahe null unter einem längeren Schritt heißen, dass der Loader mithält und das Modell das Tempo bestimmt. Die Kennzahlen zeigen den Input-bound-Anteil mit einer Zeile Rat.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Worker timeline&lt;/b&gt;: a lane per worker, each batch a box in the lane of the worker that loads it (coloured and numbered by batch); the consumer&apos;s lane shows its waiting (lower half) and computing (upper half). Idle gaps in the worker lanes under long consumer waits point at the loading, not the model. With 0 workers the consumer loads every batch itself, on its own &quot;consumer (loads)&quot; lane.</source>
        <translation>&lt;b&gt;Worker-Zeitleiste&lt;/b&gt;: eine Spur pro Worker, jeder Batch ein Kasten in der Spur des Workers, der ihn lädt (nach Batch gefärbt und nummeriert); die Spur des Modells zeigt sein Warten (untere Hälfte) und Rechnen (obere Hälfte). Leerlauf in den Worker-Spuren bei langem Warten des Modells weist auf das Laden, nicht auf das Modell. Mit 0 Workern lädt das Modell jeden Batch selbst, auf seiner eigenen Spur „Modell (lädt selbst)“.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Throughput&lt;/b&gt;: samples per second over each round of workers, with its median. &lt;b&gt;Wait histogram&lt;/b&gt;: how the waits spread, on a log scale; spikes every W batches give two humps.</source>
        <translation>&lt;b&gt;Durchsatz&lt;/b&gt;: Samples pro Sekunde über jede Runde der Worker, mit ihrem Median. &lt;b&gt;Wartezeit-Histogramm&lt;/b&gt;: wie die Wartezeiten streuen, auf logarithmischer Skala; Spitzen alle W Batches ergeben zwei Buckel.</translation>
    </message>
    <message>
        <source>Mouse and keys</source>
        <translation>Maus und Tasten</translation>
    </message>
    <message>
        <source>Hover over a plot to read it: the batch, box, round, bin or position under the mouse in every shown run. The mouse wheel zooms and dragging pans; both stop following the newest data.</source>
        <translation>Mit der Maus über einem Plot lesen: der Batch, Kasten, die Runde, Klasse oder Position unter dem Mauszeiger in jedem gezeigten Lauf. Das Mausrad zoomt, Ziehen verschiebt; beides beendet das Folgen der neuesten Daten.</translation>
    </message>
    <message>
        <source>More</source>
        <translation>Mehr</translation>
    </message>
    <message>
        <source>&lt;b&gt;Wait pattern&lt;/b&gt; (beside the wait plot): the same waits folded by the batch&apos;s position in its round of W batches (W workers times devices), the last 200 rounds as faint dots (the newest on the right of each position), their median as the bold line and their 90th percentile dashed. Each epoch is turned so that its slowest position comes first where one stands out, because which batch of the round waits can change from one epoch to the next. A spike every W batches, a dense comb on the wait plot once hundreds of batches are in view, stands here as one tall position 0; flat means every position waits alike. Changing the workers starts the fold afresh; with 0 workers there is one position.</source>
        <translation>&lt;b&gt;Wartemuster&lt;/b&gt; (neben dem Wartezeit-Plot): dieselben Wartezeiten, gefaltet nach der Position des Batches in seiner Runde aus W Batches (W = Worker mal Geräte), die letzten 200 Runden als blasse Punkte (die neuesten rechts in jeder Position), ihr Median als kräftige Linie und ihr 90. Perzentil gestrichelt. Jede Epoche wird so gedreht, dass ihre langsamste Position zuerst kommt, wo eine heraussticht, denn welcher Batch der Runde wartet, kann sich von einer Epoche zur nächsten ändern. Eine Spitze alle W Batches, auf dem Wartezeit-Plot ein dichter Kamm, sobald Hunderte Batches zu sehen sind, steht hier als eine hohe Position 0; flach heißt, dass jede Position gleich lange wartet. Eine Änderung der Worker beginnt die Faltung neu; mit 0 Workern gibt es eine Position.</translation>
    </message>
    <message>
        <source>Guide to the window</source>
        <translation>Anleitung zum Fenster</translation>
    </message>
    <message>
        <source>Runs kept or opened for comparison (the Runs list under the plots) are drawn on every plot in their colour; untick a run to hide it.</source>
        <translation>Zum Vergleich behaltene oder geöffnete Läufe (die Liste Läufe unter den Plots) erscheinen in jedem Plot in ihrer Farbe; entfernen Sie den Haken eines Laufs, um ihn auszublenden.</translation>
    </message>
    <message>
        <source>Markers and the Events list</source>
        <translation>Markierungen und die Ereignisliste</translation>
    </message>
    <message>
        <source>Dark dashed vertical lines are events: a changed setting (&quot;Workers 4 → 2&quot;), a pause or resume, an autotuner move, a lesson&apos;s phase. Where their labels crowd, an event shows only its number, &quot;#4&quot;, the number it has in the &lt;b&gt;Events&lt;/b&gt; list (the tab beside Runs, View → Events). Light dotted lines are new epochs; crowded, they read &quot;e12&quot; for epoch 12, never a bare number. Hover over a line for its full text; choose a row of the Events list to centre every plot on it.</source>
        <translation>Dunkle gestrichelte senkrechte Linien sind Ereignisse: eine geänderte Einstellung („Worker 4 → 2“), eine Pause oder Fortsetzung, ein Schritt des Autotuners, eine Phase einer Lektion. Wo ihre Beschriftungen zu dicht stehen, zeigt ein Ereignis nur seine Nummer, „#4“, die Nummer in der Liste &lt;b&gt;Ereignisse&lt;/b&gt; (der Reiter neben Läufe, Ansicht → Ereignisse). Helle gepunktete Linien sind neue Epochen; dicht gedrängt lauten sie „E12“ für Epoche 12, nie eine bloße Zahl. Fahren Sie mit der Maus über eine Linie für ihren vollen Text; wählen Sie eine Zeile der Ereignisliste, um jeden Plot darauf zu zentrieren.</translation>
    </message>
    <message>
        <source>The side column</source>
        <translation>Die Seitenleiste</translation>
    </message>
    <message>
        <source>&lt;b&gt;Settings&lt;/b&gt;: the engine (LoaderLab&apos;s loader, PyTorch&apos;s DataLoader or a pipeline file), the dataset, and the loader&apos;s settings (workers, batch size, prefetch, pinned memory, the model step or its simulated time). Start, Pause and Stop are at its top; a changed setting applies to the running run at the next batch and leaves a marker. The figures under the tabs (samples/s, waits, input-bound share and one line of advice) cover the newest batches while the run goes on.</source>
        <translation>&lt;b&gt;Einstellungen&lt;/b&gt;: die Engine (der Loader von LoaderLab, der DataLoader von PyTorch oder eine Pipeline-Datei), der Datensatz und die Einstellungen des Loaders (Worker, Batchgröße, Prefetch, gepinnter Speicher, der Modellschritt oder seine simulierte Zeit). Starten, Pause und Stoppen stehen oben; eine geänderte Einstellung gilt für den laufenden Lauf ab dem nächsten Batch und hinterlässt eine Markierung. Die Kennzahlen unter den Reitern (Samples/s, Wartezeiten, Input-bound-Anteil und eine Zeile Rat) beziehen sich auf die neuesten Batches, solange der Lauf weitergeht.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Lessons&lt;/b&gt;: guided experiments, each answering one question (why waits spike every W batches, why the first batch is slow, what more workers or devices buy): it runs its phases on the chosen data and ends with a verdict from the measured trace.</source>
        <translation>&lt;b&gt;Lektionen&lt;/b&gt;: geführte Experimente, jedes beantwortet eine Frage (warum die Wartezeit alle W Batches hochschnellt, warum der erste Batch langsam ist, was mehr Worker oder Geräte bringen): Es führt seine Phasen auf den gewählten Daten aus und endet mit einem Ergebnis aus dem gemessenen Trace.</translation>
    </message>
    <message>
        <source>&lt;b&gt;What if&lt;/b&gt;: the loader model calibrated on the run, predicting samples/s, waits and the slowest rank for other workers, batch sizes, cores, devices and nodes. Calibrate takes the current run&apos;s costs; each figure says what it assumed.</source>
        <translation>&lt;b&gt;Was wäre, wenn&lt;/b&gt;: das am Lauf kalibrierte Modell des Loaders sagt Samples/s, Wartezeiten und den langsamsten Rang für andere Worker, Batchgrößen, Kerne, Geräte und Knoten voraus. Kalibrieren übernimmt die Kosten des aktuellen Laufs; jede Zahl nennt ihre Annahmen.</translation>
    </message>
    <message>
        <source>Experiments</source>
        <translation>Experimente</translation>
    </message>
    <message>
        <source>A sweep runs every combination of the axes you choose (workers, batch size, prefetch, engine…) for a few seconds each, Repeats times, and shows the samples/s as a heatmap and as lines against workers, with the best cell. Predicted shows the model&apos;s figures for the same cells beside the measured ones; choose a cell for its details or to open its run. The largest-batch search finds the biggest batch the model step fits.</source>
        <translation>Ein Sweep führt jede Kombination der gewählten Achsen (Worker, Batchgröße, Prefetch, Engine…) je einige Sekunden lang aus, so oft wie Wiederholungen angibt, und zeigt die Samples/s als Heatmap und als Linien über den Workern, mit der besten Zelle. Vorhergesagt zeigt die Zahlen des Modells für dieselben Zellen neben den gemessenen; wählen Sie eine Zelle für ihre Einzelheiten oder um ihren Lauf zu öffnen. Die Suche nach dem größten Batch findet den größten Batch, in den der Modellschritt passt.</translation>
    </message>
    <message>
        <source>Runs, files and exports</source>
        <translation>Läufe, Dateien und Exporte</translation>
    </message>
    <message>
        <source>&lt;b&gt;Runs&lt;/b&gt; (under the plots): Run → Keep run copies the live run for comparison; File → Open run adds a run written by &lt;tt&gt;loaderlab run --csv --json&lt;/tt&gt;; File → Follow run draws one that is still being written (its .csv.part or .json.part while it runs) and moves on to the final files when it ends. Tick a run to draw it, double-click its name to rename it. The figures table beside the list compares the ticked runs.</source>
        <translation>&lt;b&gt;Läufe&lt;/b&gt; (unter den Plots): Lauf → Lauf zum Vergleich behalten kopiert den laufenden Lauf zum Vergleich; Datei → Lauf öffnen fügt einen von &lt;tt&gt;loaderlab run --csv --json&lt;/tt&gt; geschriebenen Lauf hinzu; Datei → Lauf verfolgen zeichnet einen, der noch geschrieben wird (seine .csv.part oder .json.part, solange er läuft), und wechselt zu den endgültigen Dateien, wenn er endet. Haken Sie einen Lauf an, um ihn zu zeichnen; ein Doppelklick auf seinen Namen benennt ihn um. Die Kennzahlentabelle neben der Liste vergleicht die angehakten Läufe.</translation>
    </message>
    <message>
        <source>&lt;b&gt;File → Export&lt;/b&gt;: the trace of any shown run as CSV (times from that run&apos;s start), the figures table as CSV, the live run&apos;s summary as JSON or its trace for Perfetto, and every plot as PNG, SVG or PDF. An export is written whole or not at all: a failed one leaves the file that was there.</source>
        <translation>&lt;b&gt;Datei → Exportieren&lt;/b&gt;: der Trace jedes angezeigten Laufs als CSV (Zeiten ab dem Start dieses Laufs), die Kennzahlentabelle als CSV, die Zusammenfassung des laufenden Laufs als JSON oder sein Trace für Perfetto und jeder Plot als PNG, SVG oder PDF. Ein Export wird ganz oder gar nicht geschrieben: Ein fehlgeschlagener lässt die vorhandene Datei, wie sie war.</translation>
    </message>
    <message>
        <source>The documentation is in the docs folder of LoaderLab&apos;s source tree, and installed with the package in /usr/share/doc/loaderlab/docs.</source>
        <translation>Die Dokumentation liegt im Ordner docs des Quellbaums von LoaderLab und wird mit dem Paket in /usr/share/doc/loaderlab/docs installiert.</translation>
    </message>
    <message>
        <source>The documentation (installed with LoaderLab, opens in your Markdown viewer or editor):</source>
        <translation>Die Dokumentation (mit LoaderLab installiert, öffnet sich in Ihrem Markdown-Betrachter oder Editor; auf Englisch):</translation>
    </message>
    <message>
        <source>this window</source>
        <translation>dieses Fenster</translation>
    </message>
    <message>
        <source>what the figures mean</source>
        <translation>was die Kennzahlen bedeuten</translation>
    </message>
    <message>
        <source>how batches reach the workers</source>
        <translation>wie Batches zu den Workern kommen</translation>
    </message>
    <message>
        <source>the Lessons</source>
        <translation>die Lektionen</translation>
    </message>
    <message>
        <source>sweeps, the Experiments tab</source>
        <translation>Sweeps, der Reiter Experimente</translation>
    </message>
    <message>
        <source>the What if model</source>
        <translation>das Modell von Was wäre, wenn</translation>
    </message>
    <message>
        <source>several devices and nodes</source>
        <translation>mehrere Geräte und Knoten</translation>
    </message>
    <message>
        <source>&lt;b&gt;Run → Limits of this machine&lt;/b&gt; measures, for the side panel&apos;s settings, how many samples a second reading, decoding, the loader&apos;s hand-over, the step and preprocessed tensors could give here, and draws them against the cores loading with your runs as points. &lt;b&gt;Run → Start with loading made free&lt;/b&gt; replays the first batches once kept: the step&apos;s speed with a loader that costs nothing, beside the speed while loading.</source>
        <translation>&lt;b&gt;Lauf → Grenzen dieser Maschine&lt;/b&gt; misst für die Einstellungen der Seitenleiste, wie viele Samples pro Sekunde Lesen, Dekodieren, die Übergabe des Loaders, der Schritt und vorverarbeitete Tensoren hier liefern könnten, und zeichnet sie gegen die ladenden Kerne, mit Ihren Läufen als Punkten. &lt;b&gt;Lauf → Mit kostenlosem Laden starten&lt;/b&gt; wiederholt die ersten Batches, sobald sie gehalten sind: das Tempo des Schritts mit einem Loader, der nichts kostet, neben dem Tempo beim Laden.</translation>
    </message>
</context>
<context>
    <name>loaderlab::LessonManager</name>
    <message>
        <source>Lesson done: the verdict is in the Lessons tab.</source>
        <translation>Lektion fertig: das Ergebnis steht im Reiter Lektionen.</translation>
    </message>
    <message>
        <source>Preparing the default dataset: %1 of %2 images…</source>
        <translation>Standarddatensatz wird vorbereitet: %1 von %2 Bildern…</translation>
    </message>
    <message>
        <source>Preparing the default dataset…</source>
        <translation>Der Standard-Datensatz wird vorbereitet …</translation>
    </message>
    <message>
        <source>Cannot start the lesson: %1</source>
        <translation>Lektion kann nicht starten: %1</translation>
    </message>
    <message>
        <source>Preparing the lesson&apos;s tensor file…</source>
        <translation>Tensordatei der Lektion wird vorbereitet…</translation>
    </message>
    <message>
        <source>Cannot prepare the tensor file: %1</source>
        <translation>Tensordatei kann nicht vorbereitet werden: %1</translation>
    </message>
</context>
<context>
    <name>loaderlab::LessonPanel</name>
    <message>
        <source>Start lesson</source>
        <translation>Lektion starten</translation>
    </message>
    <message>
        <source>Put the lesson&apos;s settings into the controls and start a run.</source>
        <translation>Die Einstellungen der Lektion übernehmen und einen Lauf starten.</translation>
    </message>
    <message>
        <source>Apply step</source>
        <translation>Schritt ausführen</translation>
    </message>
    <message>
        <source>Make the next step&apos;s change for you (or make it in the controls).</source>
        <translation>Die Änderung des nächsten Schritts für Sie vornehmen (oder in den Einstellungen selbst).</translation>
    </message>
    <message>
        <source>Stop lesson</source>
        <translation>Lektion beenden</translation>
    </message>
    <message>
        <source>Stop following the lesson; the run goes on.</source>
        <translation>Der Lektion nicht mehr folgen; der Lauf geht weiter.</translation>
    </message>
    <message>
        <source>Choose a lesson above.</source>
        <translation>Oben eine Lektion auswählen.</translation>
    </message>
    <message>
        <source>Look for: %1</source>
        <translation>Darauf achten: %1</translation>
    </message>
    <message>
        <source>&lt;b&gt;Steps&lt;/b&gt;</source>
        <translation>&lt;b&gt;Schritte&lt;/b&gt;</translation>
    </message>
    <message numerus="yes">
        <source> (%n batches)</source>
        <translation>
            <numerusform> (%n Batch)</numerusform>
            <numerusform> (%n Batches)</numerusform>
        </translation>
    </message>
    <message>
        <source> — done</source>
        <translation> — erledigt</translation>
    </message>
    <message>
        <source>spikes every %1 batches</source>
        <translation>Spitzen alle %1 Batches</translation>
    </message>
    <message>
        <source>no regular spikes</source>
        <translation>keine regelmäßigen Spitzen</translation>
    </message>
    <message>
        <source>%1: %2 batches, first wait %3 ms, then median %4 ms, p95 %5 ms; %6; %7 samples/s</source>
        <translation>%1: %2 Batches, erste Wartezeit %3 ms, danach Median %4 ms, p95 %5 ms; %6; %7 Samples/s</translation>
    </message>
    <message>
        <source>Phase %1 of %2: %3 of %4 batches</source>
        <translation>Phase %1 von %2: %3 von %4 Batches</translation>
    </message>
    <message>
        <source>Waiting for the run with the lesson&apos;s settings (press Start).</source>
        <translation>Warte auf den Lauf mit den Einstellungen der Lektion (Start drücken).</translation>
    </message>
    <message>
        <source>Next step: %1</source>
        <translation>Nächster Schritt: %1</translation>
    </message>
    <message>
        <source>Every phase ran.</source>
        <translation>Alle Phasen sind gelaufen.</translation>
    </message>
    <message>
        <source>Verdict:</source>
        <translation>Ergebnis:</translation>
    </message>
    <message>
        <source>Verdict so far:</source>
        <translation>Bisheriges Ergebnis:</translation>
    </message>
    <message>
        <source>Cannot run on %1: %2</source>
        <translation>Nicht mit %1 ausführbar: %2</translation>
    </message>
    <message>
        <source>phase &apos;%1&apos;: %2</source>
        <translation>Phase „%1“: %2</translation>
    </message>
    <message>
        <source>Before phase %1: %2</source>
        <translation>Vor Phase %1: %2</translation>
    </message>
    <message>
        <source>1 worker</source>
        <translation>1 Worker</translation>
    </message>
    <message>
        <source>%1 workers</source>
        <translation>%1 Workern</translation>
    </message>
    <message>
        <source>Set-up: %1</source>
        <translation>Vorbereitung: %1</translation>
    </message>
    <message>
        <source>This lesson compares an image folder with the tensor file preprocessed from it, so it needs the image folder; %1 is a preprocessed tensor file. Choose the folder as the dataset.</source>
        <translation>Diese Lektion vergleicht einen Bildordner mit der daraus vorverarbeiteten Tensordatei und braucht deshalb den Bildordner; %1 ist eine vorverarbeitete Tensordatei. Wählen Sie den Ordner als Datensatz.</translation>
    </message>
    <message>
        <source>Set-up: measuring how fast the data loads with %1 and no step: %2 batches, of at least %3</source>
        <translation>Vorbereitung: Es wird gemessen, wie schnell die Daten mit %1 und ohne Schritt laden: %2 Batches, von mindestens %3</translation>
    </message>
    <message>
        <source>Needs LibTorch (a model step or the gradient exchange), which this build does not have; `loaderlab lesson %1` neither.</source>
        <translation>Braucht LibTorch (einen Modellschritt oder den Gradientenaustausch), das dieser Build nicht hat; `loaderlab lesson %1` ebenso wenig.</translation>
    </message>
</context>
<context>
    <name>loaderlab::LimitsDialog</name>
    <message>
        <source>storage</source>
        <translation>Speicher</translation>
    </message>
    <message>
        <source>decode</source>
        <translation>Dekodieren</translation>
    </message>
    <message>
        <source>hand-over</source>
        <translation>Übergabe</translation>
    </message>
    <message>
        <source>step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <source>preprocessed</source>
        <translation>Vorverarbeitet</translation>
    </message>
    <message>
        <source>Reading the data</source>
        <translation>Das Lesen der Daten</translation>
    </message>
    <message>
        <source>The decode</source>
        <translation>Das Dekodieren</translation>
    </message>
    <message>
        <source>The loader&apos;s hand-over</source>
        <translation>Die Übergabe des Loaders</translation>
    </message>
    <message>
        <source>The step</source>
        <translation>Der Schritt</translation>
    </message>
    <message>
        <source>Preprocessed tensors</source>
        <translation>Vorverarbeitete Tensoren</translation>
    </message>
    <message>
        <source>faster storage, fewer bytes a sample, or data that fits in the page cache</source>
        <translation>schnellerer Speicher, weniger Bytes pro Sample oder Daten, die in den Page-Cache passen</translation>
    </message>
    <message>
        <source>more cores (%1 samples/s each), the fast decode for large photos, smaller inputs, or preprocessing</source>
        <translation>mehr Kerne (je %1 Samples/s), das schnelle Dekodieren großer Fotos, kleinere Eingaben oder Vorverarbeitung</translation>
    </message>
    <message>
        <source>bigger batches: the cost is per batch</source>
        <translation>größere Batches: die Kosten fallen pro Batch an</translation>
    </message>
    <message>
        <source>a faster step: half precision, channels-last, a smaller model, a faster device</source>
        <translation>ein schnellerer Schritt: halbe Genauigkeit, Channels-last, ein kleineres Modell, ein schnelleres Gerät</translation>
    </message>
    <message>
        <source>faster storage: a preprocessed sample is bigger than its JPEG</source>
        <translation>schnellerer Speicher: ein vorverarbeitetes Sample ist größer als sein JPEG</translation>
    </message>
    <message>
        <source>Limits of this machine</source>
        <translation>Grenzen dieser Maschine</translation>
    </message>
    <message>
        <source>How many samples a second each stage of the input pipeline could give on this machine, with the side panel&apos;s data and settings, a few seconds each. A run going on takes cores from the measurement: stop it first for the machine&apos;s own ceilings.</source>
        <translation>Wie viele Samples pro Sekunde jede Stufe der Eingabe-Pipeline auf dieser Maschine liefern könnte, mit den Daten und Einstellungen der Seitenleiste, je einige Sekunden. Ein laufender Lauf nimmt der Messung Kerne weg: für die Obergrenzen der Maschine selbst zuerst anhalten.</translation>
    </message>
    <message>
        <source>Seconds per stage</source>
        <translation>Sekunden pro Stufe</translation>
    </message>
    <message>
        <source>&amp;Measure</source>
        <translation>&amp;Messen</translation>
    </message>
    <message>
        <source>S&amp;top</source>
        <translation>S&amp;topp</translation>
    </message>
    <message>
        <source>&amp;Export plot…</source>
        <translation>Diagramm &amp;exportieren…</translation>
    </message>
    <message>
        <source>cores loading (workers)</source>
        <translation>ladende Kerne (Worker)</translation>
    </message>
    <message>
        <source>samples/s</source>
        <translation>Samples/s</translation>
    </message>
    <message>
        <source>Ceiling</source>
        <translation>Obergrenze</translation>
    </message>
    <message>
        <source>Samples/s</source>
        <translation>Samples/s</translation>
    </message>
    <message>
        <source>What lifts it</source>
        <translation>Was sie anhebt</translation>
    </message>
    <message>
        <source>Measure to see the ceilings of the side panel&apos;s settings.</source>
        <translation>Messen, um die Obergrenzen der Einstellungen der Seitenleiste zu sehen.</translation>
    </message>
    <message>
        <source>Opening the dataset…</source>
        <translation>Datensatz wird geöffnet…</translation>
    </message>
    <message>
        <source>Measuring the %1 ceiling (%2 of %3)…</source>
        <translation>Obergrenze „%1“ wird gemessen (%2 von %3)…</translation>
    </message>
    <message>
        <source>Stopped: the ceilings measured so far.</source>
        <translation>Gestoppt: die bisher gemessenen Obergrenzen.</translation>
    </message>
    <message>
        <source>Measured on %1.</source>
        <translation>Gemessen auf %1.</translation>
    </message>
    <message>
        <source>Cannot measure: %1</source>
        <translation>Messen nicht möglich: %1</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>Wird gestoppt…</translation>
    </message>
    <message>
        <source>No stage of the loader could be measured (hover over the table for why).</source>
        <translation>Keine Stufe des Loaders ließ sich messen (der Tooltip der Tabelle sagt, warum).</translation>
    </message>
    <message>
        <source>%1 binds the loader at %2 samples/s, with %3 of %4 cores free to it.</source>
        <translation>%1 begrenzt den Loader auf %2 Samples/s, mit %3 von %4 Kernen frei für ihn.</translation>
    </message>
    <message>
        <source>The step alone takes %1: it binds the job, and a faster loader would not speed it up.</source>
        <translation>Der Schritt allein schafft %1: er begrenzt den Job, ein schnellerer Loader würde ihn nicht beschleunigen.</translation>
    </message>
    <message>
        <source>The step alone could take %1.</source>
        <translation>Der Schritt allein könnte %1 schaffen.</translation>
    </message>
    <message>
        <source>runs</source>
        <translation>Läufe</translation>
    </message>
    <message>
        <source>%1 %2/core</source>
        <translation>%1 %2/Kern</translation>
    </message>
    <message>
        <source>%1 %2 (above)</source>
        <translation>%1 %2 (darüber)</translation>
    </message>
    <message>
        <source>%1 cores</source>
        <translation>%1 Kerne</translation>
    </message>
    <message>
        <source>%1 free</source>
        <translation>%1 frei</translation>
    </message>
    <message>
        <source>Export roofline</source>
        <translation>Roofline exportieren</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)</source>
        <translation>PNG-Bild (*.png);;SVG-Bild (*.svg);;PDF-Dokument (*.pdf)</translation>
    </message>
    <message>
        <source>Wrote %1</source>
        <translation>%1 geschrieben</translation>
    </message>
    <message>
        <source>%1 cores, all free</source>
        <translation>%1 Kerne, alle frei</translation>
    </message>
    <message numerus="yes">
        <source>as set (%n worker(s))</source>
        <translation>
            <numerusform>wie eingestellt (%n Worker)</numerusform>
            <numerusform>wie eingestellt (%n Worker)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n worker(s)</source>
        <translation>
            <numerusform>%n Worker</numerusform>
            <numerusform>%n Worker</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>a core more, %n worker(s)</source>
        <translation>
            <numerusform>ein Kern mehr, %n Worker</numerusform>
            <numerusform>ein Kern mehr, %n Worker</numerusform>
        </translation>
    </message>
    <message>
        <source>preprocessed tensors</source>
        <translation>vorverarbeitete Tensoren</translation>
    </message>
    <message>
        <source>a step twice as fast</source>
        <translation>ein doppelt so schneller Schritt</translation>
    </message>
    <message>
        <source>%1 %2 (storage binds)</source>
        <translation>%1 %2 (der Speicher begrenzt)</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message>
        <source>The job, predicted by the loader model from these ceilings, in samples/s: %1.</source>
        <translation>Der Job, vom Loader-Modell aus diesen Obergrenzen vorhergesagt, in Samples/s: %1.</translation>
    </message>
</context>
<context>
    <name>loaderlab::LivePlot</name>
    <message>
        <source>the consumer</source>
        <translation>das Modell (lädt selbst)</translation>
    </message>
    <message>
        <source>worker %1</source>
        <translation>Worker %1</translation>
    </message>
</context>
<context>
    <name>loaderlab::LivePlotArea</name>
    <message>
        <source>Wait time per batch</source>
        <translation>Wartezeit je Batch</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>Durchsatz</translation>
    </message>
    <message>
        <source>Worker timeline</source>
        <translation>Worker-Zeitleiste</translation>
    </message>
    <message>
        <source>Wait time histogram</source>
        <translation>Histogramm der Wartezeiten</translation>
    </message>
    <message>
        <source>Wait pattern over the round</source>
        <translation>Wartemuster über die Runde</translation>
    </message>
</context>
<context>
    <name>loaderlab::MainWindow</name>
    <message>
        <source>LoaderLab</source>
        <translation>LoaderLab</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>&amp;Open configuration…</source>
        <translation>K&amp;onfiguration öffnen…</translation>
    </message>
    <message>
        <source>&amp;Save configuration…</source>
        <translation>Konfiguration &amp;speichern…</translation>
    </message>
    <message>
        <source>Export trace as &amp;CSV…</source>
        <translation>Trace als &amp;CSV exportieren…</translation>
    </message>
    <message>
        <source>Export summary as &amp;JSON…</source>
        <translation>Zusammenfassung als &amp;JSON exportieren…</translation>
    </message>
    <message>
        <source>Export &amp;plots…</source>
        <translation>&amp;Plots exportieren…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>&amp;Lauf</translation>
    </message>
    <message>
        <source>&amp;Start</source>
        <translation>&amp;Starten</translation>
    </message>
    <message>
        <source>S&amp;top</source>
        <translation>Sto&amp;ppen</translation>
    </message>
    <message>
        <source>&amp;Reset</source>
        <translation>&amp;Zurücksetzen</translation>
    </message>
    <message>
        <source>&amp;Keep run for comparison</source>
        <translation>Lauf zum &amp;Vergleich behalten</translation>
    </message>
    <message>
        <source>&amp;Remove kept and opened runs</source>
        <translation>Behaltene und geöffnete Läufe &amp;entfernen</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <source>&amp;Follow newest data</source>
        <translation>Neuesten Daten &amp;folgen</translation>
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
        <source>&amp;About LoaderLab</source>
        <translation>Ü&amp;ber LoaderLab</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>Lauf</translation>
    </message>
    <message>
        <source>Keep run</source>
        <translation>Lauf behalten</translation>
    </message>
    <message>
        <source>Export plots…</source>
        <translation>Plots exportieren…</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>Sprache</translation>
    </message>
    <message>
        <source>The language changes when LoaderLab is started again.</source>
        <translation>Die Sprache ändert sich beim nächsten Start von LoaderLab.</translation>
    </message>
    <message>
        <source>About LoaderLab</source>
        <translation>Über LoaderLab</translation>
    </message>
    <message>
        <source>&lt;h3&gt;LoaderLab %1&lt;/h3&gt;&lt;p&gt;See and tune how data loading feeds a deep-learning model: a real loader with PyTorch&apos;s DataLoader semantics, live plots of every batch.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;LoaderLab %1&lt;/h3&gt;&lt;p&gt;Sehen und optimieren Sie, wie das Datenladen ein Deep-Learning-Modell versorgt: ein echter Loader mit der DataLoader-Semantik von PyTorch, Live-Plots zu jedem Batch.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>The saved settings were not restored: %1</source>
        <translation>Die gespeicherten Einstellungen wurden nicht wiederhergestellt: %1</translation>
    </message>
    <message>
        <source>Live</source>
        <translation>Live</translation>
    </message>
    <message>
        <source>Experiments</source>
        <translation>Experimente</translation>
    </message>
    <message>
        <source>&amp;Live plots</source>
        <translation>&amp;Live-Plots</translation>
    </message>
    <message>
        <source>&amp;Experiments (sweeps)</source>
        <translation>&amp;Experimente (Sweeps)</translation>
    </message>
    <message>
        <source>Open &amp;run…</source>
        <translation>&amp;Lauf öffnen…</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>Läufe</translation>
    </message>
    <message>
        <source>&amp;Runs and their figures</source>
        <translation>Lä&amp;ufe und ihre Kennzahlen</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>Lessons</source>
        <translation>Lektionen</translation>
    </message>
    <message>
        <source>Export trace for Per&amp;fetto…</source>
        <translation>Trace für Per&amp;fetto exportieren…</translation>
    </message>
    <message>
        <source>&amp;Lessons</source>
        <translation>Le&amp;ktionen</translation>
    </message>
    <message>
        <source>F&amp;ollow run…</source>
        <translation>Lauf &amp;verfolgen…</translation>
    </message>
    <message>
        <source>Fit &amp;all</source>
        <translation>&amp;Alles zeigen</translation>
    </message>
    <message>
        <source>Every shown run whole on every plot (stops following)</source>
        <translation>Jeder angezeigte Lauf ganz in jedem Diagramm (beendet das Folgen)</translation>
    </message>
    <message>
        <source>What if</source>
        <translation>Was wäre, wenn</translation>
    </message>
    <message>
        <source>&amp;What if (predicted settings)</source>
        <translation>&amp;Was wäre, wenn (vorhergesagte Einstellungen)</translation>
    </message>
    <message>
        <source>Events</source>
        <translation>Ereignisse</translation>
    </message>
    <message>
        <source>E&amp;vents (markers of the shown runs)</source>
        <translation>Ereig&amp;nisse (Markierungen der angezeigten Läufe)</translation>
    </message>
    <message>
        <source>The documentation is in the docs folder of the source tree.</source>
        <translation>Die Dokumentation liegt im Ordner docs des Quellbaums.</translation>
    </message>
    <message>
        <source>Documentation: &lt;a href=&quot;%1&quot;&gt;%2&lt;/a&gt;</source>
        <translation>Dokumentation: &lt;a href=&quot;%1&quot;&gt;%2&lt;/a&gt;</translation>
    </message>
    <message>
        <source>Help → Guide to the window (F1) explains every part of this window.</source>
        <translation>Hilfe → Anleitung zum Fenster (F1) erklärt jeden Teil dieses Fensters.</translation>
    </message>
    <message>
        <source>Export r&amp;eport (HTML, PDF)…</source>
        <translation>Be&amp;richt exportieren (HTML, PDF)…</translation>
    </message>
    <message>
        <source>Export figures &amp;table as CSV…</source>
        <translation>&amp;Kennzahlentabelle als CSV exportieren…</translation>
    </message>
    <message>
        <source>&amp;Pause</source>
        <translation>Pa&amp;use</translation>
    </message>
    <message>
        <source>&amp;Guide to the window…</source>
        <translation>&amp;Anleitung zum Fenster…</translation>
    </message>
    <message>
        <source>Res&amp;ume</source>
        <translation>&amp;Fortsetzen</translation>
    </message>
    <message>
        <source>Start with loading made &amp;free (replay)…</source>
        <translation>Mit kosten&amp;losem Laden starten (Wiederholung)…</translation>
    </message>
    <message>
        <source>&amp;Limits of this machine (roofline)…</source>
        <translation>&amp;Grenzen dieser Maschine (Roofline)…</translation>
    </message>
</context>
<context>
    <name>loaderlab::MaxBatchPanel</name>
    <message>
        <source>batch %1: does not fit (%2)</source>
        <translation>Batch %1: passt nicht (%2)</translation>
    </message>
    <message>
        <source>batch %1: fits (peak %2, %3 ms)</source>
        <translation>Batch %1: passt (Spitze %2, %3 ms)</translation>
    </message>
    <message>
        <source>Stopped before any batch was tried.</source>
        <translation>Gestoppt, bevor ein Batch versucht wurde.</translation>
    </message>
    <message>
        <source>Not even batch 1 fits: %1</source>
        <translation>Nicht einmal Batch 1 passt: %1</translation>
    </message>
    <message>
        <source> (the largest batch tried)</source>
        <translation> (der größte versuchte Batch)</translation>
    </message>
    <message>
        <source> (out of attempts: the limit is below %1)</source>
        <translation> (keine Versuche mehr: die Grenze liegt unter %1)</translation>
    </message>
    <message>
        <source> (stopped before the search ended)</source>
        <translation> (vor dem Ende der Suche gestoppt)</translation>
    </message>
    <message>
        <source>Largest batch that fits: %1%2. Suggested: %3 (%4).
%5</source>
        <translation>Größter passender Batch: %1%2. Vorschlag: %3 (%4).
%5</translation>
    </message>
    <message>
        <source>Largest batch</source>
        <translation>Größter Batch</translation>
    </message>
    <message>
        <source>Find max batch</source>
        <translation>Größten Batch finden</translation>
    </message>
    <message>
        <source>Runs the side panel&apos;s LibTorch model step at batch 1, 2, 4, … until it no longer fits in memory, then narrows it down.</source>
        <translation>Führt den LibTorch-Modellschritt der Seitenleiste mit Batch 1, 2, 4, … aus, bis er nicht mehr in den Speicher passt, und grenzt dann ein.</translation>
    </message>
    <message>
        <source>This build has no LibTorch: the max batch finder runs real model steps and needs it.</source>
        <translation>Dieser Build hat kein LibTorch: die Suche nach dem größten Batch führt echte Modellschritte aus und braucht es.</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>Stopp</translation>
    </message>
    <message>
        <source>Stops the search.</source>
        <translation>Stoppt die Suche.</translation>
    </message>
    <message>
        <source>A search is already running.</source>
        <translation>Eine Suche läuft bereits.</translation>
    </message>
    <message>
        <source>Building the model…</source>
        <translation>Modell wird gebaut…</translation>
    </message>
    <message>
        <source>Cannot search: %1</source>
        <translation>Suche nicht möglich: %1</translation>
    </message>
</context>
<context>
    <name>loaderlab::ModelPanel</name>
    <message>
        <source>LibTorch model</source>
        <translation>LibTorch-Modell</translation>
    </message>
    <message>
        <source>A built-in architecture with random weights (torchvision&apos;s layers and parameter counts), or your own TorchScript file.</source>
        <translation>Eine eingebaute Architektur mit zufälligen Gewichten (Schichten und Parameterzahlen wie torchvision) oder eine eigene TorchScript-Datei.</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>A module saved with torch.jit.save; it is fed the dataset&apos;s batches as they are. Applied on Return.</source>
        <translation>Ein mit torch.jit.save gespeichertes Modul; es erhält die Batches des Datensatzes unverändert. Wird mit der Eingabetaste übernommen.</translation>
    </message>
    <message>
        <source>Choose a TorchScript file on disk.</source>
        <translation>TorchScript-Datei auf dem Datenträger auswählen.</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Durchsuchen…</translation>
    </message>
    <message>
        <source>File</source>
        <translation>Datei</translation>
    </message>
    <message>
        <source>Inference runs the forward pass without gradients; a training step adds cross-entropy on the batch labels, backward and an optimizer step.</source>
        <translation>Inferenz rechnet den Vorwärtsdurchlauf ohne Gradienten; ein Trainingsschritt ergänzt Kreuzentropie auf den Labels des Batches, Backward und einen Optimiererschritt.</translation>
    </message>
    <message>
        <source>inference</source>
        <translation>Inferenz</translation>
    </message>
    <message>
        <source>training step</source>
        <translation>Trainingsschritt</translation>
    </message>
    <message>
        <source>The optimizer of the training step.</source>
        <translation>Der Optimierer des Trainingsschritts.</translation>
    </message>
    <message>
        <source>SGD</source>
        <translation>SGD</translation>
    </message>
    <message>
        <source>Adam</source>
        <translation>Adam</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>Modus</translation>
    </message>
    <message>
        <source>Where the model runs; batches are copied there.</source>
        <translation>Wo das Modell läuft; die Batches werden dorthin kopiert.</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>Gerät</translation>
    </message>
    <message>
        <source>fp32, or mixed precision through autocast: bf16 on the CPU, fp16 or bf16 on CUDA.</source>
        <translation>fp32 oder gemischte Genauigkeit per Autocast: bf16 auf der CPU, fp16 oder bf16 mit CUDA.</translation>
    </message>
    <message>
        <source>fp32</source>
        <translation>fp32</translation>
    </message>
    <message>
        <source>bf16 (autocast)</source>
        <translation>bf16 (Autocast)</translation>
    </message>
    <message>
        <source>fp16 (autocast)</source>
        <translation>fp16 (Autocast)</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>Genauigkeit</translation>
    </message>
    <message>
        <source>Memory format of the input and the weights; convolutions often run faster channels-last.</source>
        <translation>Speicherformat von Eingabe und Gewichten; Faltungen laufen mit channels-last oft schneller.</translation>
    </message>
    <message>
        <source>NCHW (contiguous)</source>
        <translation>NCHW (zusammenhängend)</translation>
    </message>
    <message>
        <source>channels-last (NHWC)</source>
        <translation>channels-last (NHWC)</translation>
    </message>
    <message>
        <source>Layout</source>
        <translation>Layout</translation>
    </message>
    <message>
        <source>Intra-op threads of the model&apos;s kernels (torch.set_num_threads); the loader&apos;s workers compete for the same cores.</source>
        <translation>Intra-op-Threads der Kernel des Modells (torch.set_num_threads); die Worker des Loaders konkurrieren um dieselben Kerne.</translation>
    </message>
    <message>
        <source>all cores</source>
        <translation>alle Kerne</translation>
    </message>
    <message>
        <source>Threads</source>
        <translation>Threads</translation>
    </message>
    <message>
        <source>Activation checkpointing</source>
        <translation>Activation Checkpointing</translation>
    </message>
    <message>
        <source>Training step only: keep only each stage&apos;s input and recompute its activations in backward, trading time for memory.</source>
        <translation>Nur im Trainingsschritt: nur die Eingabe jeder Stufe behalten und ihre Aktivierungen im Backward neu berechnen; Zeit gegen Speicher.</translation>
    </message>
    <message>
        <source>TorchScript file…</source>
        <translation>TorchScript-Datei…</translation>
    </message>
    <message>
        <source>Run a real model on every batch instead of the simulated step.</source>
        <translation>Für jeden Batch ein echtes Modell statt des simulierten Schritts ausführen.</translation>
    </message>
    <message>
        <source>Not available: this build of LoaderLab has no LibTorch models (it was configured with LOADERLAB_WITH_TORCH=OFF).</source>
        <translation>Nicht verfügbar: diese LoaderLab-Version enthält keine LibTorch-Modelle (konfiguriert mit LOADERLAB_WITH_TORCH=OFF).</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>CUDA %1</source>
        <translation>CUDA %1</translation>
    </message>
    <message>
        <source>CUDA (not available)</source>
        <translation>CUDA (nicht verfügbar)</translation>
    </message>
    <message>
        <source>CUDA not available: %1.</source>
        <translation>CUDA nicht verfügbar: %1.</translation>
    </message>
    <message>
        <source>The settings ask for device %1, which this machine cannot use; the model runs on the CPU. %2</source>
        <translation>Die Einstellungen verlangen das Gerät %1, das auf diesem Rechner nicht nutzbar ist; das Modell läuft auf der CPU. %2</translation>
    </message>
    <message>
        <source>fp16 autocast needs a CUDA device; the model runs in fp32 on the CPU.</source>
        <translation>fp16-Autocast braucht ein CUDA-Gerät; das Modell läuft auf der CPU in fp32.</translation>
    </message>
    <message>
        <source>Keep only each stage&apos;s input and recompute its activations in backward, trading time for memory.</source>
        <translation>Nur die Eingabe jeder Stufe behalten und ihre Aktivierungen im Backward neu berechnen; Zeit gegen Speicher.</translation>
    </message>
    <message>
        <source>Only for the training step: inference keeps no activations for backward.</source>
        <translation>Nur für den Trainingsschritt: Inferenz behält keine Aktivierungen für den Backward.</translation>
    </message>
    <message>
        <source>fp16 autocast needs a CUDA device; on the CPU use bf16.</source>
        <translation>fp16-Autocast braucht ein CUDA-Gerät; auf der CPU bf16 verwenden.</translation>
    </message>
    <message>
        <source>Choose a TorchScript model</source>
        <translation>TorchScript-Modell auswählen</translation>
    </message>
    <message>
        <source>TorchScript models (*.pt *.pth *.ts *.torchscript);;All files (*)</source>
        <translation>TorchScript-Modelle (*.pt *.pth *.ts *.torchscript);;Alle Dateien (*)</translation>
    </message>
</context>
<context>
    <name>loaderlab::RunFollower</name>
    <message>
        <source>%1 (following)</source>
        <translation>%1 (wird verfolgt)</translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n rank(s))</source>
        <translation>
            <numerusform>%1 (%n Rang)</numerusform>
            <numerusform>%1 (%n Ränge)</numerusform>
        </translation>
    </message>
    <message>
        <source>Following %1</source>
        <translation>%1 wird verfolgt</translation>
    </message>
    <message>
        <source>%1 has ended already: all of it is shown.</source>
        <translation>%1 ist bereits beendet: alles wird angezeigt.</translation>
    </message>
    <message>
        <source>Finished following %1: the run failed after %2 batches: %3</source>
        <translation>Verfolgung von %1 beendet: der Lauf ist nach %2 Batches fehlgeschlagen: %3</translation>
    </message>
    <message>
        <source>Finished following %1: the run ended (%2) after %3 batches.</source>
        <translation>Verfolgung von %1 beendet: der Lauf endete (%2) nach %3 Batches.</translation>
    </message>
    <message>
        <source>Stopped following %1: %2 (what was read stays shown)</source>
        <translation>Verfolgung von %1 gestoppt: %2 (das Gelesene bleibt angezeigt)</translation>
    </message>
</context>
<context>
    <name>loaderlab::RunList</name>
    <message>
        <source>live run</source>
        <translation>laufender Lauf</translation>
    </message>
    <message>
        <source>1 worker, batch %1</source>
        <translation>1 Worker, Batch %1</translation>
    </message>
    <message>
        <source>%1 workers, batch %2</source>
        <translation>%1 Worker, Batch %2</translation>
    </message>
</context>
<context>
    <name>loaderlab::RunListView</name>
    <message>
        <source>Show</source>
        <translation>Zeigen</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>From</source>
        <translation>Herkunft</translation>
    </message>
    <message>
        <source>this window</source>
        <translation>dieses Fenster</translation>
    </message>
    <message>
        <source>kept</source>
        <translation>behalten</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>Entfernen</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>Lauf</translation>
    </message>
    <message>
        <source>Samples/s</source>
        <translation>Samples/s</translation>
    </message>
    <message>
        <source>Batches</source>
        <translation>Batches</translation>
    </message>
    <message>
        <source>Tick a run to draw it on every plot</source>
        <translation>Einen Lauf anhaken, um ihn in jedem Plot zu zeigen</translation>
    </message>
    <message>
        <source>Figures of the ticked runs</source>
        <translation>Kennzahlen der angehakten Läufe</translation>
    </message>
    <message>
        <source>Every plot draws the runs ticked here, each in its colour. Double-click a name to change it.</source>
        <translation>Jedes Diagramm zeichnet die hier angehakten Läufe, jeden in seiner Farbe. Doppelklick auf einen Namen ändert ihn.</translation>
    </message>
    <message>
        <source>Wait mean
(ms)</source>
        <translation>Wartezeit Mittel
(ms)</translation>
    </message>
    <message>
        <source>Wait p95
(ms)</source>
        <translation>Wartezeit p95
(ms)</translation>
    </message>
    <message>
        <source>Input-
bound</source>
        <translation>Input-
bound</translation>
    </message>
    <message>
        <source>First batch
(ms)</source>
        <translation>Erster Batch
(ms)</translation>
    </message>
    <message>
        <source>The figures of every visible run (docs/metrics.md): mean samples/s after warm-up, the wait for a batch, the share of the run spent waiting, the first batch&apos;s wait. The live run&apos;s cover its most recent batches while it runs.</source>
        <translation>Die Kennzahlen jedes sichtbaren Laufs (docs/metrics.md): mittlere Samples/s nach der Aufwärmphase, die Wartezeit auf einen Batch, der Anteil des Laufs mit Warten, die Wartezeit des ersten Batches. Die des laufenden Laufs umfassen seine jüngsten Batches, solange er läuft.</translation>
    </message>
    <message>
        <source>Remove this run from the list and the plots.</source>
        <translation>Diesen Lauf aus der Liste und den Diagrammen entfernen.</translation>
    </message>
</context>
<context>
    <name>loaderlab::RunManager</name>
    <message>
        <source>Not applied; the run goes on with the previous step: %1</source>
        <translation>Nicht übernommen; der Lauf geht mit dem bisherigen Schritt weiter: %1</translation>
    </message>
    <message>
        <source>Model step not changed: %1</source>
        <translation>Modellschritt nicht geändert: %1</translation>
    </message>
    <message>
        <source>Cannot start: %1</source>
        <translation>Start nicht möglich: %1</translation>
    </message>
    <message>
        <source>There is no run to keep yet.</source>
        <translation>Es gibt noch keinen Lauf zum Behalten.</translation>
    </message>
    <message>
        <source>The run failed: %1</source>
        <translation>Der Lauf ist fehlgeschlagen: %1</translation>
    </message>
    <message numerus="yes">
        <source>%n device(s): a new run</source>
        <translation>
            <numerusform>%n Gerät: ein neuer Lauf</numerusform>
            <numerusform>%n Geräte: ein neuer Lauf</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 — %2 batches</source>
        <translation>%1 — %2 Batches</translation>
    </message>
    <message>
        <source> — step %1 ms, wait %2 ms per batch: %3</source>
        <translation> — Schritt %1 ms, Wartezeit %2 ms pro Batch: %3</translation>
    </message>
    <message>
        <source> — %1</source>
        <translation> — %1</translation>
    </message>
    <message>
        <source>idle</source>
        <translation>bereit</translation>
    </message>
    <message>
        <source>running</source>
        <translation>läuft</translation>
    </message>
    <message>
        <source>paused</source>
        <translation>pausiert</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>beendet</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>gestoppt</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>fehlgeschlagen</translation>
    </message>
    <message>
        <source>PyTorch DataLoader (torch %1): %2</source>
        <translation>PyTorch-DataLoader (torch %1): %2</translation>
    </message>
    <message>
        <source>PyTorch DataLoader: %1</source>
        <translation>PyTorch-DataLoader: %1</translation>
    </message>
    <message>
        <source>Start with loading made free</source>
        <translation>Mit kostenlosem Laden starten</translation>
    </message>
    <message numerus="yes">
        <source>The run loads this many batches, then stops loading and runs its step on them again and again: the job&apos;s speed with a loader that costs nothing, beside the speed while it loaded. Batches to keep (more than the %n warm-up batch(es)):</source>
        <translation>
            <numerusform>Der Lauf lädt so viele Batches, hört dann auf zu laden und führt seinen Schritt immer wieder auf ihnen aus: das Tempo des Jobs mit einem Loader, der nichts kostet, neben dem Tempo beim Laden. Zu haltende Batches (mehr als der %n Aufwärm-Batch):</numerusform>
            <numerusform>Der Lauf lädt so viele Batches, hört dann auf zu laden und führt seinen Schritt immer wieder auf ihnen aus: das Tempo des Jobs mit einem Loader, der nichts kostet, neben dem Tempo beim Laden. Zu haltende Batches (mehr als die %n Aufwärm-Batches):</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>loaderlab::StatsPanel</name>
    <message>
        <source>Samples/s</source>
        <translation>Samples/s</translation>
    </message>
    <message>
        <source>Throughput after warm-up: mean over the run and median over rounds of one batch per worker.</source>
        <translation>Durchsatz nach der Aufwärmphase: Mittelwert über den Lauf und Median über Runden mit je einem Batch pro Worker.</translation>
    </message>
    <message>
        <source>First batch</source>
        <translation>Erster Batch</translation>
    </message>
    <message>
        <source>From start to the first delivered batch, worker start-up included.</source>
        <translation>Vom Start bis zum ersten gelieferten Batch, inklusive Start der Worker.</translation>
    </message>
    <message>
        <source>Wait</source>
        <translation>Wartezeit</translation>
    </message>
    <message>
        <source>How long the model waited for each batch after asking for it (percentiles after warm-up).</source>
        <translation>Wie lange das Modell nach der Anforderung auf jeden Batch gewartet hat (Perzentile nach der Aufwärmphase).</translation>
    </message>
    <message>
        <source>Input-bound</source>
        <translation>Input-bound</translation>
    </message>
    <message>
        <source>Share of the run the model spent waiting for data: under 5 % fine, 5-20 % moderate, 20 % or more high.</source>
        <translation>Anteil des Laufs, in dem das Modell auf Daten gewartet hat: unter 5 % gut, 5-20 % mäßig, ab 20 % hoch.</translation>
    </message>
    <message>
        <source>Delivered</source>
        <translation>Geliefert</translation>
    </message>
    <message>
        <source>Batches and samples delivered to the model.</source>
        <translation>An das Modell gelieferte Batches und Samples.</translation>
    </message>
    <message>
        <source>Skipped</source>
        <translation>Übersprungen</translation>
    </message>
    <message>
        <source>Samples left out because they could not be read or decoded.</source>
        <translation>Ausgelassene Samples, die nicht gelesen oder dekodiert werden konnten.</translation>
    </message>
    <message>
        <source>%1 mean, %2 median</source>
        <translation>Ø %1, Median %2</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>p50 %1, p95 %2, p99 %3, max %4 ms</source>
        <translation>p50 %1, p95 %2, p99 %3, max. %4 ms</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>%1 batches, %2 samples</source>
        <translation>%1 Batches, %2 Samples</translation>
    </message>
    <message>
        <source>not input-bound</source>
        <translation>nicht input-bound</translation>
    </message>
    <message>
        <source>moderately input-bound</source>
        <translation>mäßig input-bound</translation>
    </message>
    <message>
        <source>highly input-bound</source>
        <translation>stark input-bound</translation>
    </message>
    <message>
        <source>input-bound %1 %: the loader keeps up; the model step is the limit</source>
        <translation>input-bound %1 %: der Loader hält mit; der Modellschritt begrenzt</translation>
    </message>
    <message>
        <source>input-bound %1 %: a few more workers or a larger prefetch may help</source>
        <translation>input-bound %1 %: etwas mehr Worker oder mehr Prefetch können helfen</translation>
    </message>
    <message>
        <source>input-bound %1 %: add workers or preprocess offline</source>
        <translation>input-bound %1 %: mehr Worker einsetzen oder offline vorverarbeiten</translation>
    </message>
    <message>
        <source>Per batch</source>
        <translation>Pro Batch</translation>
    </message>
    <message>
        <source>Mean time the model step took per batch, next to the mean time it waited for the batch: a step much longer than the wait means the run is compute-bound, a wait comparable to the step means it is input-bound. A model&apos;s host-to-device copy is shown apart.</source>
        <translation>Mittlere Dauer des Modellschritts pro Batch neben der mittleren Wartezeit auf den Batch: ist der Schritt viel länger als die Wartezeit, begrenzt die Rechnung; ist die Wartezeit vergleichbar, begrenzt die Eingabe. Die Kopie eines Modells auf das Gerät steht getrennt.</translation>
    </message>
    <message>
        <source>Peak memory</source>
        <translation>Spitzenspeicher</translation>
    </message>
    <message>
        <source>Highest memory use of a model step so far: the CUDA allocator&apos;s peak on a GPU, the process&apos;s peak resident set around the step on the CPU.</source>
        <translation>Höchster Speicherbedarf eines Modellschritts bisher: der Spitzenwert des CUDA-Allocators auf einer GPU, auf der CPU der höchste Resident Set des Prozesses um den Schritt.</translation>
    </message>
    <message>
        <source>step %1 ms, wait %2 ms (mean)</source>
        <translation>Schritt %1 ms, Wartezeit %2 ms (Mittel)</translation>
    </message>
    <message>
        <source>; copy to device %1 ms</source>
        <translation>; Kopie aufs Gerät %1 ms</translation>
    </message>
    <message>
        <source>%1 MiB</source>
        <translation>%1 MiB</translation>
    </message>
    <message>
        <source>Per device</source>
        <translation>Je Gerät</translation>
    </message>
    <message>
        <source>A data-parallel run: each rank&apos;s samples/s and input-bound share (samples/s above is their total).</source>
        <translation>Ein datenparalleler Lauf: Samples/s und Input-bound-Anteil jedes Rangs (Samples/s darüber ist ihre Summe).</translation>
    </message>
    <message>
        <source>%1: %2/s, %3</source>
        <translation>%1: %2/s, %3</translation>
    </message>
    <message>
        <source>no sample was delivered (%1 skipped), so there is no input-bound verdict</source>
        <translation>kein Sample geliefert (%1 übersprungen), daher kein Urteil über Input-bound</translation>
    </message>
    <message>
        <source>no sample was delivered, so there is no input-bound verdict</source>
        <translation>kein Sample geliefert, daher kein Urteil über Input-bound</translation>
    </message>
    <message>
        <source>no model step: the consumer waits for every batch by construction, so samples/s is the loader&apos;s own rate; set a step (a simulated step or a model) to see whether loading keeps up</source>
        <translation>kein Modellschritt: Ohne Schritt wartet der Lauf zwangsläufig auf jeden Batch, Samples/s ist also die eigene Rate des Loaders; einen Schritt einstellen (einen simulierten Schritt oder ein Modell), um zu sehen, ob das Laden mithält</translation>
    </message>
    <message>
        <source>no samples</source>
        <translation>keine Samples</translation>
    </message>
    <message>
        <source>no model step</source>
        <translation>kein Modellschritt</translation>
    </message>
    <message>
        <source>Rank time</source>
        <translation>Zeit der Ränge</translation>
    </message>
    <message>
        <source>Where the ranks&apos; time went (their mean): the step, waiting for data, waiting for the slowest rank, and the gradient exchange; and the rank whose data loading was the most exposed, which every other rank waits for.</source>
        <translation>Wohin die Zeit der Ränge ging (ihr Mittel): der Schritt, das Warten auf Daten, das Warten auf den langsamsten Rang und der Gradientenaustausch; und der Rang, dessen Datenladen am stärksten sichtbar war – auf ihn warten alle anderen.</translation>
    </message>
    <message>
        <source>step %1, data %2, slowest rank %3, exchange %4; most exposed data loading: rank %5, %6 ms a step</source>
        <translation>Schritt %1, Daten %2, langsamster Rang %3, Austausch %4; am stärksten sichtbares Datenladen: Rang %5, %6 ms je Schritt</translation>
    </message>
    <message>
        <source>Scaling</source>
        <translation>Skalierung</translation>
    </message>
    <message>
        <source>Against the newest kept run of one rank: the speedup, the efficiency (speedup over the ranks), and the points below linear that data, a slower step, the slowest rank, the exchange and the rest each cost.</source>
        <translation>Gegen den neuesten behaltenen Lauf mit einem Rang: der Speedup, die Effizienz (Speedup durch die Zahl der Ränge) und die Punkte unter linear, die Daten, ein langsamerer Schritt, der langsamste Rang, der Austausch und der Rest jeweils kosten.</translation>
    </message>
    <message>
        <source>%1x with %2 ranks against &quot;%3&quot;, efficiency %4; below linear: data %5, step %6, slowest rank %7, exchange %8, other %9 points</source>
        <translation>%1x mit %2 Rängen gegen „%3“, Effizienz %4; unter linear: Daten %5, Schritt %6, langsamster Rang %7, Austausch %8, Rest %9 Punkte</translation>
    </message>
    <message>
        <source>Loading free</source>
        <translation>Laden kostenlos</translation>
    </message>
    <message>
        <source>A run that replays its kept batches (Run &gt; Start with loading made free): the rate once loading costs nothing, beside the rate while the loader fed the step, and the share of the job&apos;s time that loading costs.</source>
        <translation>Ein Lauf, der seine gehaltenen Batches wiederholt (Lauf &gt; Mit kostenlosem Laden starten): die Rate, wenn Laden nichts kostet, neben der Rate, während der Loader den Schritt versorgte, und der Anteil der Zeit des Jobs, den das Laden kostet.</translation>
    </message>
    <message>
        <source>%1/s from batch %2, against %3/s while loading: loading costs %4 of the job&apos;s time</source>
        <translation>%1/s ab Batch %2, gegenüber %3/s beim Laden: Laden kostet %4 der Zeit des Jobs</translation>
    </message>
    <message>
        <source>replaying from batch %1; no rate while loading yet (keep more batches than the warm-up)</source>
        <translation>Wiederholung ab Batch %1; noch keine Rate beim Laden (mehr Batches als das Aufwärmen halten)</translation>
    </message>
</context>
<context>
    <name>loaderlab::SweepAxesEditor</name>
    <message>
        <source>Check the values each axis takes; an axis with none checked is left out. The other settings come from the side panel.</source>
        <translation>Die Werte jeder Achse anhaken; eine Achse ohne angehakten Wert entfällt. Die übrigen Einstellungen kommen aus der Seitenleiste.</translation>
    </message>
    <message>
        <source>A value for the selected axis, e.g. 12 for workers; Return adds it.</source>
        <translation>Ein Wert für die gewählte Achse, z. B. 12 für Worker; Eingabe fügt ihn hinzu.</translation>
    </message>
    <message>
        <source>Add a value to the selected axis</source>
        <translation>Wert zur gewählten Achse hinzufügen</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>Hinzufügen</translation>
    </message>
    <message>
        <source>How long each cell runs: the same number of samples for every cell (as the research notes compare them), of batches, or seconds.</source>
        <translation>Wie lange jede Zelle läuft: dieselbe Anzahl Samples für jede Zelle (so vergleichen es die Forschungsnotizen), Batches oder Sekunden.</translation>
    </message>
    <message>
        <source>samples</source>
        <translation>Samples</translation>
    </message>
    <message>
        <source>batches</source>
        <translation>Batches</translation>
    </message>
    <message>
        <source>seconds</source>
        <translation>Sekunden</translation>
    </message>
    <message>
        <source>Runs of every cell, in alternating rounds, so the recommendation can tell a real margin from noise.</source>
        <translation>Läufe jeder Zelle in abwechselnden Runden, damit die Empfehlung einen echten Abstand von Rauschen unterscheiden kann.</translation>
    </message>
    <message>
        <source>Per cell</source>
        <translation>Pro Zelle</translation>
    </message>
    <message>
        <source>Repeats</source>
        <translation>Wiederholungen</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>%1: unknown key</source>
        <translation>%1: unbekannter Schlüssel</translation>
    </message>
    <message>
        <source>Select an axis first.</source>
        <translation>Zuerst eine Achse wählen.</translation>
    </message>
    <message>
        <source>Check at least one value.</source>
        <translation>Mindestens einen Wert anhaken.</translation>
    </message>
    <message numerus="yes">
        <source>%1 values × %2 repeat(s) = %n run(s)</source>
        <translation>
            <numerusform>%1 Werte × %2 Wiederholung(en) = %n Lauf</numerusform>
            <numerusform>%1 Werte × %2 Wiederholung(en) = %n Läufe</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>loaderlab::SweepCellDetail</name>
    <message>
        <source>Click a cell in the table or the heatmap to see its batches.</source>
        <translation>Eine Zelle in der Tabelle oder der Heatmap anklicken, um ihre Batches zu sehen.</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message numerus="yes">
        <source>%1 — %n batch(es)</source>
        <translation>
            <numerusform>%1 — %n Batch</numerusform>
            <numerusform>%1 — %n Batches</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>loaderlab::SweepCellsModel</name>
    <message>
        <source>running</source>
        <translation>läuft</translation>
    </message>
    <message>
        <source>not run</source>
        <translation>nicht gelaufen</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>fehlgeschlagen</translation>
    </message>
    <message numerus="yes">
        <source>done, %n failed</source>
        <translation>
            <numerusform>fertig, %n fehlgeschlagen</numerusform>
            <numerusform>fertig, %n fehlgeschlagen</numerusform>
        </translation>
    </message>
    <message>
        <source>done</source>
        <translation>fertig</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>Läufe</translation>
    </message>
    <message>
        <source>Spread</source>
        <translation>Streuung</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <source>Not run: sweep --predict-first predicted it slower than a measured cell.</source>
        <translation>Nicht gelaufen: sweep --predict-first sagte sie langsamer voraus als eine gemessene Zelle.</translation>
    </message>
    <message>
        <source>Predicted then: %1 samples/s.</source>
        <translation>Damals vorhergesagt: %1 Samples/s.</translation>
    </message>
    <message>
        <source>skipped</source>
        <translation>übersprungen</translation>
    </message>
    <message>
        <source>not predicted</source>
        <translation>nicht vorhergesagt</translation>
    </message>
    <message>
        <source>Not measured: the prediction alone.</source>
        <translation>Nicht gemessen: nur die Vorhersage.</translation>
    </message>
    <message>
        <source>Samples/s the loader model predicts, calibrated from one measured cell.</source>
        <translation>Samples/s, die das Loader-Modell vorhersagt, an einer gemessenen Zelle kalibriert.</translation>
    </message>
    <message>
        <source>(predicted - measured) / measured samples/s.</source>
        <translation>(vorhergesagt − gemessen) / gemessen, in Samples/s.</translation>
    </message>
    <message>
        <source>Predicted samples/s</source>
        <translation>Vorhergesagte Samples/s</translation>
    </message>
    <message>
        <source>Prediction error</source>
        <translation>Vorhersagefehler</translation>
    </message>
</context>
<context>
    <name>loaderlab::SweepHeatmap</name>
    <message>
        <source>failed</source>
        <translation>fehlgeschlagen</translation>
    </message>
    <message>
        <source>not run</source>
        <translation>nicht gelaufen</translation>
    </message>
    <message>
        <source>skipped</source>
        <translation>übersprungen</translation>
    </message>
    <message>
        <source>Prediction error (%)</source>
        <translation>Vorhersagefehler (%)</translation>
    </message>
    <message>
        <source>pred. %1</source>
        <translation>vorh. %1</translation>
    </message>
    <message>
        <source>not predicted</source>
        <translation>nicht vorhergesagt</translation>
    </message>
</context>
<context>
    <name>loaderlab::SweepLinePlots</name>
    <message>
        <source>End-to-end time</source>
        <translation>Gesamtzeit</translation>
    </message>
    <message>
        <source>end to end (s)</source>
        <translation>Gesamtzeit (s)</translation>
    </message>
    <message>
        <source>Model step per sample</source>
        <translation>Modellschritt pro Sample</translation>
    </message>
    <message>
        <source>step ÷ batch size (ms)</source>
        <translation>Schritt ÷ Batchgröße (ms)</translation>
    </message>
    <message>
        <source>Speedup and efficiency</source>
        <translation>Beschleunigung und Effizienz</translation>
    </message>
    <message>
        <source>speedup (×, solid)</source>
        <translation>Beschleunigung (×, Linie)</translation>
    </message>
    <message>
        <source>efficiency (%, dashed)</source>
        <translation>Effizienz (%, Striche)</translation>
    </message>
    <message>
        <source>%1, efficiency</source>
        <translation>%1, Effizienz</translation>
    </message>
    <message>
        <source>No speedup to draw: it is measured along a swept number (workers, devices, batch size), and this sweep varies %1.</source>
        <translation>Kein Speedup zu zeichnen: Er wird entlang einer variierten Zahl gemessen (Worker, Geräte, Batchgröße), und dieser Sweep variiert %1.</translation>
    </message>
    <message>
        <source>No speedup yet: it needs finished runs at two values of the axis.</source>
        <translation>Noch kein Speedup: Dafür braucht es beendete Läufe bei zwei Werten der Achse.</translation>
    </message>
</context>
<context>
    <name>loaderlab::SweepWorker</name>
    <message>
        <source>A sweep is already running.</source>
        <translation>Ein Sweep läuft bereits.</translation>
    </message>
</context>
<context>
    <name>loaderlab::ThroughputPlot</name>
    <message>
        <source>time (s)</source>
        <translation>Zeit (s)</translation>
    </message>
    <message>
        <source>samples/s</source>
        <translation>Samples/s</translation>
    </message>
    <message>
        <source>samples/s per round of workers</source>
        <translation>Samples/s pro Worker-Runde</translation>
    </message>
    <message>
        <source>median %1 samples/s</source>
        <translation>Median %1 Samples/s</translation>
    </message>
    <message>
        <source>%1: %2 samples/s at %3 s</source>
        <translation>%1: %2 Samples/s bei %3 s</translation>
    </message>
    <message>
        <source>median of the live run: %1 samples/s</source>
        <translation>Median des laufenden Laufs: %1 Samples/s</translation>
    </message>
</context>
<context>
    <name>loaderlab::TimelinePlottable</name>
    <message>
        <source>worker busy (colour = batch)</source>
        <translation>Worker beschäftigt (Farbe = Batch)</translation>
    </message>
</context>
<context>
    <name>loaderlab::WaitHistogramPlot</name>
    <message>
        <source>wait (log scale)</source>
        <translation>Wartezeit (log. Skala)</translation>
    </message>
    <message>
        <source>batches (%)</source>
        <translation>Batches (%)</translation>
    </message>
    <message>
        <source>this run</source>
        <translation>dieser Lauf</translation>
    </message>
    <message>
        <source>%1 µs</source>
        <translation>%1 µs</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>this run: %1 % of %2 batches</source>
        <translation>dieser Lauf: %1 % von %2 Batches</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>wait %1 to %2 ms</source>
        <translation>Wartezeit %1 bis %2 ms</translation>
    </message>
</context>
<context>
    <name>loaderlab::WaitPatternPlot</name>
    <message>
        <source>wait (ms)</source>
        <translation>Wartezeit (ms)</translation>
    </message>
    <message>
        <source>median</source>
        <translation>Median</translation>
    </message>
    <message>
        <source>median: %1</source>
        <translation>Median: %1</translation>
    </message>
    <message>
        <source>all workers</source>
        <translation>alle Worker</translation>
    </message>
    <message>
        <source>its first round</source>
        <translation>seine erste Runde</translation>
    </message>
    <message>
        <source>the last %1 rounds</source>
        <translation>die letzten %1 Runden</translation>
    </message>
    <message>
        <source>position %1 of %2: median %3 ms, p90 %4 ms over %5; its newest batch from %6, config version %7</source>
        <translation>Position %1 von %2: Median %3 ms, p90 %4 ms über %5; ihr neuester Batch von %6, Konfigurationsversion %7</translation>
    </message>
    <message>
        <source>waits</source>
        <translation>Wartezeiten</translation>
    </message>
    <message>
        <source>p90</source>
        <translation>p90</translation>
    </message>
    <message>
        <source>position in the round</source>
        <translation>Position in der Runde</translation>
    </message>
    <message>
        <source>position in the round of %1</source>
        <translation>Position in der Runde aus %1</translation>
    </message>
    <message>
        <source>Each batch&apos;s wait by
its place in the round
of W batches: a spike
every W batches stands
as one tall column.</source>
        <translation>Die Wartezeit jedes Batches
nach ihrem Platz in der Runde
aus W Batches: eine Spitze
alle W Batches steht
als eine hohe Säule.</translation>
    </message>
</context>
<context>
    <name>loaderlab::WaitTimePlot</name>
    <message>
        <source>batch</source>
        <translation>Batch</translation>
    </message>
    <message>
        <source>wait</source>
        <translation>Wartezeit</translation>
    </message>
    <message>
        <source>wait, rolling mean</source>
        <translation>Wartezeit, gleitender Mittelwert</translation>
    </message>
    <message>
        <source>first batch</source>
        <translation>erster Batch</translation>
    </message>
    <message numerus="yes">
        <source>wait, rolling mean of %n batch(es)</source>
        <translation>
            <numerusform>Wartezeit, gleitender Mittelwert über %n Batch</numerusform>
            <numerusform>Wartezeit, gleitender Mittelwert über %n Batches</numerusform>
        </translation>
    </message>
    <message>
        <source>wait and step (ms)</source>
        <translation>Wartezeit und Schritt (ms)</translation>
    </message>
    <message>
        <source>model step</source>
        <translation>Modellschritt</translation>
    </message>
    <message>
        <source>wait: %1</source>
        <translation>Wartezeit: %1</translation>
    </message>
    <message>
        <source>wait %1 ms, step %2 ms, %3, config version %4</source>
        <translation>Wartezeit %1 ms, Schritt %2 ms, %3, Konfigurationsversion %4</translation>
    </message>
    <message>
        <source>batch %1 (epoch %2)</source>
        <translation>Batch %1 (Epoche %2)</translation>
    </message>
    <message>
        <source>Press Start to run the loader, or File → Open run… to look at a recorded one.
Each dot here is one batch&apos;s wait for its data:
with W workers, the waits spike every W batches.</source>
        <translation>Start drücken, um den Loader laufen zu lassen, oder Datei → Lauf öffnen…, um einen aufgezeichneten anzusehen.
Jeder Punkt hier ist die Wartezeit eines Batches auf seine Daten:
mit W Workern steigen die Wartezeiten alle W Batches an.</translation>
    </message>
    <message>
        <source>◀ first batch: %1 ms</source>
        <translation>◀ erster Batch: %1 ms</translation>
    </message>
</context>
<context>
    <name>loaderlab::WhatIfMachineChoice</name>
    <message>
        <source>How busy the machine was while the run was recorded: the time other programs took is not counted as the loader&apos;s own cost.</source>
        <translation>Wie ausgelastet die Maschine war, während der Lauf aufgezeichnet wurde: die Zeit, die andere Programme nahmen, zählt nicht als eigene Kosten des Loaders.</translation>
    </message>
    <message>
        <source>The machine as it was: other programs go on taking the cores they took while the run was recorded, at any number of cores. An idle machine: the cores are the run&apos;s alone.</source>
        <translation>Die Maschine, wie sie war: andere Programme nehmen weiter die Kerne, die sie während der Aufzeichnung nahmen, bei jeder Zahl von Kernen. Eine freie Maschine: die Kerne gehören dem Lauf allein.</translation>
    </message>
    <message>
        <source>The machine as it was</source>
        <translation>Die Maschine, wie sie war</translation>
    </message>
    <message>
        <source>An idle machine</source>
        <translation>Eine freie Maschine</translation>
    </message>
    <message>
        <source>Predict for</source>
        <translation>Vorhersage für</translation>
    </message>
    <message numerus="yes">
        <source>Other programs and the hypervisor used %1 of the %n core(s) while the run was recorded.</source>
        <translation>
            <numerusform>Andere Programme und der Hypervisor nutzten %1 des %n Kerns, während der Lauf aufgezeichnet wurde.</numerusform>
            <numerusform>Andere Programme und der Hypervisor nutzten %1 der %n Kerne, während der Lauf aufgezeichnet wurde.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Other programs used %1 of the %n core(s) while the run was recorded.</source>
        <translation>
            <numerusform>Andere Programme nutzten %1 des %n Kerns, während der Lauf aufgezeichnet wurde.</numerusform>
            <numerusform>Andere Programme nutzten %1 der %n Kerne, während der Lauf aufgezeichnet wurde.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>loaderlab::WhatIfPanel</name>
    <message>
        <source>The run the model is calibrated from.</source>
        <translation>Der Lauf, an dem das Modell kalibriert wird.</translation>
    </message>
    <message>
        <source>Calibrate</source>
        <translation>Kalibrieren</translation>
    </message>
    <message>
        <source>Measures the run&apos;s costs (loading a sample, collating, the step, the workers&apos; start-up) from its batches; the live run is calibrated again every few seconds while it goes on.</source>
        <translation>Misst die Kosten des Laufs (ein Sample laden, zusammenfügen, der Schritt, der Start der Worker) aus seinen Batches; der laufende Lauf wird alle paar Sekunden neu kalibriert, solange er läuft.</translation>
    </message>
    <message>
        <source>Predicted samples/s for 0 to twice as many workers as cores, at the chosen cores, devices and batch size; the diamond is what the run itself measured.</source>
        <translation>Vorhergesagte Samples/s für 0 bis doppelt so viele Worker wie Kerne, bei den gewählten Kernen, Geräten und der Batchgröße; die Raute ist, was der Lauf selbst gemessen hat.</translation>
    </message>
    <message>
        <source>The model&apos;s error on the run it was calibrated from: how far to trust the other predictions, at best.</source>
        <translation>Der Fehler des Modells auf dem Lauf, an dem es kalibriert wurde: wie weit man den anderen Vorhersagen trauen kann, bestenfalls.</translation>
    </message>
    <message>
        <source>Assumed: processor sharing (busy threads share the cores evenly); no memory-bandwidth or cache model; no disk, page-cache or network model.</source>
        <translation>Angenommen: Processor Sharing (beschäftigte Threads teilen sich die Kerne gleichmäßig); kein Modell von Speicherbandbreite oder Cache; kein Modell von Platte, Page-Cache oder Netz.</translation>
    </message>
    <message>
        <source>Settings with more workers than cores, or moving large batches, may be slower than predicted. See docs/what-if.md.</source>
        <translation>Einstellungen mit mehr Workern als Kernen oder mit großen Batches können langsamer sein als vorhergesagt. Siehe docs/what-if.md.</translation>
    </message>
    <message>
        <source>Logical cores of the machine.</source>
        <translation>Logische Kerne des Rechners.</translation>
    </message>
    <message>
        <source>Cores</source>
        <translation>Kerne</translation>
    </message>
    <message>
        <source>Data-parallel devices, each with its own loader and workers.</source>
        <translation>Datenparallele Geräte, jedes mit eigenem Loader und eigenen Workern.</translation>
    </message>
    <message>
        <source>Devices</source>
        <translation>Geräte</translation>
    </message>
    <message>
        <source>Loader workers per device.</source>
        <translation>Loader-Worker je Gerät.</translation>
    </message>
    <message>
        <source>Samples per batch.</source>
        <translation>Samples je Batch.</translation>
    </message>
    <message>
        <source>Back to the calibrated run&apos;s setting.</source>
        <translation>Zurück zur Einstellung des kalibrierten Laufs.</translation>
    </message>
    <message>
        <source>The run&apos;s</source>
        <translation>Die des Laufs</translation>
    </message>
    <message>
        <source>Batch</source>
        <translation>Batch</translation>
    </message>
    <message>
        <source>Workers</source>
        <translation>Worker</translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation>Vorhergesagt</translation>
    </message>
    <message>
        <source>Samples/s</source>
        <translation>Samples/s</translation>
    </message>
    <message>
        <source>Predicted throughput after warm-up, all devices together.</source>
        <translation>Vorhergesagter Durchsatz nach dem Warm-up, alle Geräte zusammen.</translation>
    </message>
    <message>
        <source>Input-bound</source>
        <translation>Input-bound</translation>
    </message>
    <message>
        <source>Share of the run the step spends waiting for data.</source>
        <translation>Anteil des Laufs, in dem der Schritt auf Daten wartet.</translation>
    </message>
    <message>
        <source>First batch</source>
        <translation>Erster Batch</translation>
    </message>
    <message>
        <source>From the start to the first delivered batch, worker start-up included.</source>
        <translation>Vom Start bis zum ersten gelieferten Batch, Start der Worker eingeschlossen.</translation>
    </message>
    <message>
        <source>Wait p95</source>
        <translation>Wartezeit p95</translation>
    </message>
    <message>
        <source>95th percentile of how long the step waits for its batch.</source>
        <translation>95. Perzentil der Zeit, die der Schritt auf seinen Batch wartet.</translation>
    </message>
    <message>
        <source>Wait period</source>
        <translation>Warteperiode</translation>
    </message>
    <message>
        <source>Every how many batches a long wait comes back (the workers&apos; round); none when the waits are flat.</source>
        <translation>Nach wie vielen Batches eine lange Wartezeit wiederkehrt (die Runde der Worker); keine, wenn die Wartezeiten flach sind.</translation>
    </message>
    <message>
        <source>Live run (%1)</source>
        <translation>Laufender Lauf (%1)</translation>
    </message>
    <message>
        <source>No run to calibrate from: start a run, or open a recorded one (File → Open run…).</source>
        <translation>Kein Lauf zum Kalibrieren: einen Lauf starten oder einen aufgezeichneten öffnen (Datei → Lauf öffnen…).</translation>
    </message>
    <message>
        <source>Calibrates when shown.</source>
        <translation>Kalibriert, sobald sichtbar.</translation>
    </message>
    <message>
        <source>Too few batches to calibrate from: %1 so far, %2 needed (the warm-up&apos;s %3 and %4 more).</source>
        <translation>Zu wenige Batches zum Kalibrieren: %1 bisher, %2 nötig (die %3 des Warm-ups und %4 mehr).</translation>
    </message>
    <message>
        <source>Calibrating…</source>
        <translation>Kalibriere…</translation>
    </message>
    <message>
        <source>Calibration failed: %1</source>
        <translation>Kalibrierung fehlgeschlagen: %1</translation>
    </message>
    <message numerus="yes">
        <source>Calibrated from %n batch(es) of the live run</source>
        <translation>
            <numerusform>Kalibriert an %n Batch des laufenden Laufs</numerusform>
            <numerusform>Kalibriert an %n Batches des laufenden Laufs</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Calibrated from %n batch(es) of %1</source>
        <translation>
            <numerusform>Kalibriert an %n Batch von %1</numerusform>
            <numerusform>Kalibriert an %n Batches von %1</numerusform>
        </translation>
    </message>
    <message>
        <source> (the first of its batches)</source>
        <translation> (den ersten seiner Batches)</translation>
    </message>
    <message>
        <source>The run itself: measured %1 samples/s, predicted %2 (%3 %).</source>
        <translation>Der Lauf selbst: gemessen %1 Samples/s, vorhergesagt %2 (%3 %).</translation>
    </message>
    <message>
        <source>The run itself: predicted %1 samples/s (nothing measured after its warm-up).</source>
        <translation>Der Lauf selbst: vorhergesagt %1 Samples/s (nach dem Warm-up nichts gemessen).</translation>
    </message>
    <message>
        <source>The model cannot predict this setting: %1</source>
        <translation>Diese Einstellung kann das Modell nicht vorhersagen: %1</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>every %1 batches</source>
        <translation>alle %1 Batches</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keine</translation>
    </message>
    <message>
        <source>Slowest rank</source>
        <translation>Langsamster Rang</translation>
    </message>
    <message>
        <source>With several devices every step waits for the slowest rank&apos;s data: the expected largest of that many of the run&apos;s own waits, taken as independent draws, and how many times one rank&apos;s mean wait it is.</source>
        <translation>Mit mehreren Geräten wartet jeder Schritt auf die Daten des langsamsten Rangs: das erwartete Größte von so vielen Wartezeiten des Laufs selbst, als unabhängige Ziehungen genommen, und das Wievielfache der mittleren Wartezeit eines Rangs es ist.</translation>
    </message>
    <message>
        <source>%1 ms a step (%2x)</source>
        <translation>%1 ms je Schritt (%2x)</translation>
    </message>
    <message>
        <source>Identical nodes, each with these cores and devices: the gradient is all-reduced within each node, then between the nodes over the link chosen beside.</source>
        <translation>Gleiche Knoten, jeder mit diesen Kernen und Geräten: der Gradient wird in jedem Knoten reduziert, dann zwischen den Knoten über die daneben gewählte Verbindung.</translation>
    </message>
    <message>
        <source>The link between nodes (one a node), as assumed: its nominal rate and a typical latency.</source>
        <translation>Die Verbindung zwischen den Knoten (eine je Knoten), angenommen: ihre Nennrate und eine typische Latenz.</translation>
    </message>
    <message>
        <source>10 GbE</source>
        <translation>10 GbE</translation>
    </message>
    <message>
        <source>25 GbE</source>
        <translation>25 GbE</translation>
    </message>
    <message>
        <source>100 GbE</source>
        <translation>100 GbE</translation>
    </message>
    <message>
        <source>InfiniBand HDR</source>
        <translation>InfiniBand HDR</translation>
    </message>
    <message>
        <source>between them</source>
        <translation>dazwischen</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>Its settings changed while it ran: the costs come from all its batches, the setting predicted back is its first (%1).</source>
        <translation>Seine Einstellungen haben sich während des Laufs geändert: Die Kosten stammen aus allen seinen Batches, nachgerechnet wird seine erste Einstellung (%1).</translation>
    </message>
</context>
<context>
    <name>loaderlab::WhatIfPlot</name>
    <message>
        <source>Workers</source>
        <translation>Worker</translation>
    </message>
    <message>
        <source>Samples/s</source>
        <translation>Samples/s</translation>
    </message>
    <message>
        <source>predicted</source>
        <translation>vorhergesagt</translation>
    </message>
    <message>
        <source>chosen</source>
        <translation>gewählt</translation>
    </message>
    <message>
        <source>measured (this run)</source>
        <translation>gemessen (dieser Lauf)</translation>
    </message>
</context>
<context>
    <name>loaderlab::WorkerTimelinePlot</name>
    <message>
        <source>time (s)</source>
        <translation>Zeit (s)</translation>
    </message>
    <message>
        <source>consumer waiting (lower half)</source>
        <translation>Modell wartet (untere Hälfte)</translation>
    </message>
    <message>
        <source>consumer computing (upper half)</source>
        <translation>Modell rechnet (obere Hälfte)</translation>
    </message>
    <message>
        <source>consumer (loads)</source>
        <translation>Modell (lädt selbst)</translation>
    </message>
    <message>
        <source>worker %1</source>
        <translation>Worker %1</translation>
    </message>
    <message>
        <source>consumer</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>rank %1 %2</source>
        <translation>Rang %1 %2</translation>
    </message>
    <message>
        <source>rank %1, </source>
        <translation>Rang %1, </translation>
    </message>
    <message>
        <source>batch %1: step %2 ms (%3 to %4 s)</source>
        <translation>Batch %1: Schritt %2 ms (%3 bis %4 s)</translation>
    </message>
    <message>
        <source>batch %1: waiting %2 ms (%3 to %4 s)</source>
        <translation>Batch %1: wartet %2 ms (%3 bis %4 s)</translation>
    </message>
    <message>
        <source>batch %1 on %2: loading %3 ms (%4 to %5 s)</source>
        <translation>Batch %1 auf %2: lädt %3 ms (%4 bis %5 s)</translation>
    </message>
    <message>
        <source>read %1 ms, decode %2 ms, transform %3 ms (its samples together)</source>
        <translation>Lesen %1 ms, Dekodieren %2 ms, Transformieren %3 ms (seine Samples zusammen)</translation>
    </message>
    <message>
        <source>A lane per worker appears here when a run starts: every batch is a box in the lane
of the worker that loads it, and the consumer&apos;s lane shows when it waits and when it computes.</source>
        <translation>Hier erscheint beim Start eines Laufs eine Spur pro Worker: Jeder Batch ist ein Kasten in der Spur
des Workers, der ihn lädt, und die Spur des Modells zeigt, wann es wartet und wann es rechnet.</translation>
    </message>
    <message>
        <source>waiting for the slowest rank (lower half)</source>
        <translation>wartet auf den langsamsten Rang (untere Hälfte)</translation>
    </message>
    <message>
        <source>gradient exchange (upper half)</source>
        <translation>Gradientenaustausch (obere Hälfte)</translation>
    </message>
    <message>
        <source>rank %1 consumer</source>
        <translation>Rang %1 Modell</translation>
    </message>
    <message>
        <source>rank %1</source>
        <translation>Rang %1</translation>
    </message>
    <message>
        <source>batch %1: gradient exchange %2 ms (%3 to %4 s)</source>
        <translation>Batch %1: Gradientenaustausch %2 ms (%3 bis %4 s)</translation>
    </message>
    <message>
        <source>batch %1: waiting for the slowest rank %2 ms (%3 to %4 s)</source>
        <translation>Batch %1: wartet %2 ms auf den langsamsten Rang (%3 bis %4 s)</translation>
    </message>
</context>
</TS>
