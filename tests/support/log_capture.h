#pragma once

// LogCapture: sends spdlog's default logger to a string for its lifetime, each line
// as "LEVEL message", so a test can check what a user would read on stderr.

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <sstream>
#include <string>

class LogCapture
{
public:
    LogCapture()
        : m_previous(spdlog::default_logger())
    {
        auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(m_stream);
        auto logger = std::make_shared<spdlog::logger>("capture", sink);
        logger->set_pattern("%l %v");
        spdlog::set_default_logger(logger);
    }
    ~LogCapture() { spdlog::set_default_logger(m_previous); }
    LogCapture(const LogCapture &) = delete;
    LogCapture &operator=(const LogCapture &) = delete;

    std::string text() const { return m_stream.str(); }

private:
    std::ostringstream m_stream;
    std::shared_ptr<spdlog::logger> m_previous;
};
