/** The {@code locksmith} command: run, server, status and demo. */
@NullMarked
package dev.locksmith.cli;

import org.jspecify.annotations.NullMarked;
