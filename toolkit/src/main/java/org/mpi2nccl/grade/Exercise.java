package org.mpi2nccl.grade;

import com.google.gson.JsonObject;
import org.mpi2nccl.notebook.Notebook;

import java.util.ArrayList;
import java.util.List;

/**
 * An exercise of a lesson: its name (metadata {@code mpi2nccl.exercise}), the id of its cell in the instructor's
 * source, and the ids of the check cells that judge it (cells tagged {@code check} up to the next exercise).
 */
record Exercise(String name, String cellId, List<String> checkIds) {
    /** The exercises of a lesson source, in order; a source without any cannot be graded. */
    static List<Exercise> of(Notebook source) {
        List<Exercise> found = new ArrayList<>();
        String name = null;
        String cell = null;
        List<String> checks = new ArrayList<>();
        for (JsonObject c : source.cells()) {
            if (!Notebook.isCode(c)) continue;
            String ex = Notebook.exercise(c);
            if (ex != null && Notebook.tags(c).contains("exercise")) {
                if (name != null) found.add(new Exercise(name, cell, List.copyOf(checks)));
                name = ex;
                cell = Notebook.id(c);
                checks.clear();
            } else if (name != null && Notebook.tags(c).contains("check")) {
                checks.add(Notebook.id(c));
            }
        }
        if (name != null) found.add(new Exercise(name, cell, List.copyOf(checks)));
        for (Exercise e : found) {
            if (e.checkIds().isEmpty()) {
                throw new IllegalArgumentException("exercise '" + e.name() + "' has no check cell after it (tag 'check'):"
                        + " it cannot be graded");
            }
        }
        if (found.isEmpty()) {
            throw new IllegalArgumentException("the source has no exercise cell (tag 'exercise' and metadata"
                    + " mpi2nccl.exercise): nothing to grade");
        }
        return found;
    }
}
