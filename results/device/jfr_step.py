#!/usr/bin/env python3
"""Where a rank's training thread spends its time, from a Flight Recorder recording of a GPU rank
(results/device/scaling-probe.sh jfr, or profile-step.sh): the samples taken inside
DistributedTraining.trainEpoch, grouped by the frame on top (a kernel launch, cuBLAS, NCCL, waiting for an
event, a copy, other JCuda calls, Java). Read the recording where a JDK is:

    jfr print --json --events jdk.ExecutionSample,jdk.NativeMethodSample --stack-depth 64 rank-PID.jfr > rank.json
    python3 results/device/jfr_step.py rank.json [THREAD]      (THREAD: the rank's main thread, "vm" under MPJ)
"""
import collections
import json
import sys


def kind(top):
    if 'cuLaunchKernel' in top:
        return 'launch'
    for word, name in (('cublas', 'cublas'), ('nccl', 'nccl'), ('cuEventSynchronize', 'eventsync'), ('cuMemcpy', 'memcpy'),
                       ('jcuda', 'otherjcuda')):
        if word in top:
            return name
    return 'java'


def main():
    path, thread = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else 'vm'
    counts, java = collections.Counter(), collections.Counter()
    n = 0
    for e in json.load(open(path))['recording']['events']:
        v = e['values']
        if v['sampledThread']['javaName'] != thread or not v['stackTrace']:
            continue
        names = [f['method']['type']['name'] + '.' + f['method']['name'] for f in v['stackTrace']['frames']]
        if not any('DistributedTraining.trainEpoch' in x for x in names):
            continue
        n += 1
        k = kind(names[0])
        counts[k] += 1
        if k == 'java':
            java[names[0]] += 1
    print(path, n, 'samples in trainEpoch:', {k: f'{c / n:.0%}' for k, c in counts.most_common()} if n else 'none')
    print('   java on top:', java.most_common(8))


if __name__ == '__main__':
    main()
