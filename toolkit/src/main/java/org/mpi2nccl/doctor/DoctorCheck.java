package org.mpi2nccl.doctor;

import java.util.List;

/**
 * One part of the machine report. A check never throws: whatever fails becomes a finding that says what is
 * wrong and what to do. Later lessons add their checks to {@link Doctor#CHECKS}.
 */
public interface DoctorCheck {
    List<Finding> run();
}
