<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>loaderlab::ExperimentsView</name>
    <message numerus="yes">
        <source>ran %n cell(s)</source>
        <translation>
            <numerusform>ran %n cell</numerusform>
            <numerusform>ran %n cells</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source> (%n failed)</source>
        <translation>
            <numerusform> (%n failed)</numerusform>
            <numerusform> (%n failed)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>, %n found done</source>
        <translation>
            <numerusform>, %n found done</numerusform>
            <numerusform>, %n found done</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>, %n repeat(s)</source>
        <translation>
            <numerusform>, %n repeat</numerusform>
            <numerusform>, %n repeats</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Median error of the predicted %1: %2 % over %n measured cell(s).</source>
        <translation>
            <numerusform>Median error of the predicted %1: %2 % over %n measured cell.</numerusform>
            <numerusform>Median error of the predicted %1: %2 % over %n measured cells.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n cell(s) not predicted: an axis the model cannot predict differs.</source>
        <translation>
            <numerusform>%n cell not predicted: an axis the model cannot predict differs.</numerusform>
            <numerusform>%n cells not predicted: an axis the model cannot predict differs.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Assumed: %n core(s) (this machine&apos;s), processor sharing, no memory-bandwidth, cache or network model.</source>
        <translation>
            <numerusform>Assumed: %n core (this machine&apos;s), processor sharing, no memory-bandwidth, cache or network model.</numerusform>
            <numerusform>Assumed: %n cores (this machine&apos;s), processor sharing, no memory-bandwidth, cache or network model.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>loaderlab::LessonPanel</name>
    <message numerus="yes">
        <source> (%n batches)</source>
        <translation>
            <numerusform> (%n batch)</numerusform>
            <numerusform> (%n batches)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>loaderlab::LimitsDialog</name>
    <message numerus="yes">
        <source>as set (%n worker(s))</source>
        <translation>
            <numerusform>as set (%n worker)</numerusform>
            <numerusform>as set (%n workers)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n worker(s)</source>
        <translation>
            <numerusform>%n worker</numerusform>
            <numerusform>%n workers</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>a core more, %n worker(s)</source>
        <translation>
            <numerusform>a core more, %n worker</numerusform>
            <numerusform>a core more, %n workers</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>loaderlab::RunFollower</name>
    <message numerus="yes">
        <source>%1 (%n rank(s))</source>
        <translation>
            <numerusform>%1 (%n rank)</numerusform>
            <numerusform>%1 (%n ranks)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>loaderlab::RunManager</name>
    <message numerus="yes">
        <source>%n device(s): a new run</source>
        <translation>
            <numerusform>%n device: a new run</numerusform>
            <numerusform>%n devices: a new run</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The run loads this many batches, then stops loading and runs its step on them again and again: the job&apos;s speed with a loader that costs nothing, beside the speed while it loaded. Batches to keep (more than the %n warm-up batch(es)):</source>
        <translation>
            <numerusform>The run loads this many batches, then stops loading and runs its step on them again and again: the job&apos;s speed with a loader that costs nothing, beside the speed while it loaded. Batches to keep (more than the %n warm-up batch):</numerusform>
            <numerusform>The run loads this many batches, then stops loading and runs its step on them again and again: the job&apos;s speed with a loader that costs nothing, beside the speed while it loaded. Batches to keep (more than the %n warm-up batches):</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>loaderlab::SweepAxesEditor</name>
    <message numerus="yes">
        <source>%1 values × %2 repeat(s) = %n run(s)</source>
        <translation>
            <numerusform>%1 values × %2 repeat(s) = %n run</numerusform>
            <numerusform>%1 values × %2 repeat(s) = %n runs</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>loaderlab::SweepCellDetail</name>
    <message numerus="yes">
        <source>%1 — %n batch(es)</source>
        <translation>
            <numerusform>%1 — %n batch</numerusform>
            <numerusform>%1 — %n batches</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>loaderlab::SweepCellsModel</name>
    <message numerus="yes">
        <source>done, %n failed</source>
        <translation>
            <numerusform>done, %n failed</numerusform>
            <numerusform>done, %n failed</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>loaderlab::WaitTimePlot</name>
    <message numerus="yes">
        <source>wait, rolling mean of %n batch(es)</source>
        <translation>
            <numerusform>wait, rolling mean of %n batch</numerusform>
            <numerusform>wait, rolling mean of %n batches</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>loaderlab::WhatIfMachineChoice</name>
    <message numerus="yes">
        <source>Other programs and the hypervisor used %1 of the %n core(s) while the run was recorded.</source>
        <translation>
            <numerusform>Other programs and the hypervisor used %1 of the %n core while the run was recorded.</numerusform>
            <numerusform>Other programs and the hypervisor used %1 of the %n cores while the run was recorded.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Other programs used %1 of the %n core(s) while the run was recorded.</source>
        <translation>
            <numerusform>Other programs used %1 of the %n core while the run was recorded.</numerusform>
            <numerusform>Other programs used %1 of the %n cores while the run was recorded.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>loaderlab::WhatIfPanel</name>
    <message numerus="yes">
        <source>Calibrated from %n batch(es) of the live run</source>
        <translation>
            <numerusform>Calibrated from %n batch of the live run</numerusform>
            <numerusform>Calibrated from %n batches of the live run</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Calibrated from %n batch(es) of %1</source>
        <translation>
            <numerusform>Calibrated from %n batch of %1</numerusform>
            <numerusform>Calibrated from %n batches of %1</numerusform>
        </translation>
    </message>
</context>
</TS>
