#pragma once
/// \file interrupt.hpp
/// \brief Ctrl-C (SIGINT) and SIGTERM end a run cleanly: the time loop finishes the step in
/// progress, writes a checkpoint, closes the outputs and prints the summary. A second signal
/// of the same kind ends the process at once (the handler is reset after the first).

namespace soma {

/// Installs the handlers while alive and restores the previous ones when destroyed.
class InterruptHandler {
public:
    InterruptHandler();
    ~InterruptHandler();
    InterruptHandler(const InterruptHandler&) = delete;
    InterruptHandler& operator=(const InterruptHandler&) = delete;

    /// The signal received (SIGINT or SIGTERM), or 0.
    static int signal_received();
};

}  // namespace soma
