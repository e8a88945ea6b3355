# ControlPanel, ModelPanel and StatsPanel tests; included from tests/widgets/CMakeLists.txt.
set(CMAKE_AUTOMOC ON)
loaderlab_add_test(test_control_panel
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_control_panel.cpp
    LIBS loaderlab_widgets)
loaderlab_add_test(test_model_panel
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_model_panel.cpp
    LIBS loaderlab_widgets)
loaderlab_add_test(test_pipeline_arguments
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_pipeline_arguments.cpp
    LIBS loaderlab_widgets)
loaderlab_add_test(test_wheel_guard
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_wheel_guard.cpp
    LIBS loaderlab_widgets)
